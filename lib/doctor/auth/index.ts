// Placeholder of the auth area (written in its own slice): no findings until it is merged.

import type { Check } from '../context';

/** The auth area's check. */
export const checkAuth: Check = async () => [];
