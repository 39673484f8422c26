// Floods of the authorization server's default (memory) store: registrations and abandoned authorizations from many
// addresses leave a signed-in user's client and refresh family alone (the same on Redis: __tests__/features/redis/).

import { describeSignInFloods } from './sign-in-floods';

describeSignInFloods('memory', () => undefined);
