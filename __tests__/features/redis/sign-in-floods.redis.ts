// Floods of the authorization server's store on Redis: registrations and abandoned authorizations from many addresses
// stay within their bounds across the instance's Redis keys, and leave a signed-in user's client and refresh family alone.

import { redisStore } from '../../../lib/redis';
import { describeSignInFloods } from '../../hostile/sign-in-floods';
import { useRedis } from './redis-server';

const redis = useRedis();
let floods = 0;

describeSignInFloods('Redis', () => redisStore({ url: redis.url, prefix: `floods${++floods}:` }));
