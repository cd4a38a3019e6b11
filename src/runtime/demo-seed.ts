import type { Services } from '../services.ts';

/**
 * On an empty store: a demo consumer with a subscription to every catalog item; prints its API
 * key, subscription id and a ready-to-paste curl command once. OWNED BY THE FOUNDATION WORK.
 */
export async function seedDemo(_services: Services): Promise<void> {}
