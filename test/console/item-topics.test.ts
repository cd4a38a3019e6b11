import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/load.ts';
import { itemsByTopic, OTHER } from '../../src/console/item-topics.ts';
import { defaultPaths } from '../../src/paths.ts';
import { addConsumer, createTestApp } from '../helpers/app.ts';
import { signIn } from './session.ts';

describe('the subscription form picks catalog items by topic', () => {
  it('puts every catalog item under exactly one topic, few of them under Other', async () => {
    const catalog = await loadCatalog(defaultPaths().catalog);
    const topics = itemsByTopic(catalog.list());
    const names = topics.flatMap(([, items]) => items.map((e) => e.technicalName));
    expect(names.sort()).toEqual(catalog.list().map((e) => e.technicalName).sort());
    const other = topics.find(([t]) => t === OTHER)?.[1] ?? [];
    expect(other.length).toBeLessThanOrEqual(5);
    expect(topics.find(([t]) => t === 'Crashes and emergency calls')![1].map((e) => e.technicalName)).toEqual(expect.arrayContaining(['accidentautomatic', 'crashseverity']));
  });

  it('offers checkboxes instead of free text, and creates the subscription with the checked items', async () => {
    const t = await createTestApp();
    try {
      const s = await signIn(t.app);
      const a = await addConsumer(t);
      const page = await t.app.inject({ method: 'GET', url: `/console/consumers/${a.consumerId}`, headers: { cookie: s.cookie } });
      expect(page.body).not.toContain('<textarea id="items"');
      expect(page.body).toMatch(/<fieldset class="topic" data-topic="Battery and charging">[\s\S]*?value="sochighlevel"/);
      const res = await t.app.inject({
        method: 'POST',
        url: `/console/consumers/${a.consumerId}/subscriptions`,
        headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `csrf=${encodeURIComponent(s.csrf)}&dataItems=sochighlevel&dataItems=geolocation&legalBasis=CONSENT`,
      });
      expect(res.statusCode).toBe(303);
      const created = (await t.services.store.subscriptions.listByConsumer(a.consumerId)).find((x) => x.subscriptionId !== a.subscriptionId)!;
      expect(created.dataItems).toEqual(['sochighlevel', 'geolocation']);
    } finally {
      await t.cleanup();
    }
  });
});
