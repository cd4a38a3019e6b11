import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupByTopic } from '../../src/routes/consent/pages/item-topics.ts';
import { addConsumer, createTestApp, type TestApp } from '../helpers/app.ts';

/*
 * A portal asking for many items (the demo consumer asks for all 75) groups
 * them by topic, each collapsed, so the Approve and Reject buttons are a short scroll away; a
 * few items stay one plain list.
 */
describe('the consent portal’s item list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.cleanup());

  const portal = async (dataItems: string[]) => {
    const c = await addConsumer(t, { dataItems });
    const res = await t.app.inject(`/provision?consumerId=${c.consumerId}&subscriptionId=${c.subscriptionId}&vin=V1RTUALV1N0000001`);
    expect(res.statusCode).toBe(200);
    return res.body;
  };

  it('every catalog item has a topic of its own (none falls to "Other data")', () => {
    const items = t.services.catalog.list().map((e) => ({ technicalName: e.technicalName, name: e.name, description: e.description }));
    const groups = groupByTopic(items);
    expect(groups.map((g) => g.name)).not.toContain('Other data');
    expect(groups.flatMap((g) => g.items).length).toBe(items.length);
  });

  it('many items: collapsed topics with their counts, every item still listed, the buttons after a short page', async () => {
    const all = t.services.catalog.list().map((e) => e.technicalName);
    const page = await portal(all);
    const topics = [...page.matchAll(/<details class="topic"><summary>([^<]+) \((\d+)\)<\/summary>/g)];
    expect(topics.length).toBeGreaterThanOrEqual(5);
    expect(topics.reduce((n, m) => n + Number(m[2]), 0)).toBe(all.length);
    expect(page).not.toContain('<details class="topic" open');
    for (const item of all) expect(page).toContain(`(${item})</span></dt>`);
    // What is open before the buttons: the topics' summaries, not 75 entries (left: the three parties and the VIN given).
    const beforeButtons = page.slice(0, page.indexOf('name="decision" value="approve"')).replace(/<details[\s\S]*?<\/details>/g, '');
    expect((beforeButtons.match(/<dt>/g) ?? []).length).toBeLessThanOrEqual(4);
  });

  it('a few items: one plain list, nothing to open', async () => {
    const page = await portal(['mileage', 'fuellevel', 'crashseverity']);
    expect(page).not.toContain('<details');
    expect(page).toContain('(crashseverity)</span></dt>');
  });
});
