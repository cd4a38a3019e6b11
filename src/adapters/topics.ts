/**
 * MQTT topic filters of the manifests (`+` for one whole level, no `#`), as a matcher. A
 * manufacturer may publish only to topics its own filters match, which also keeps every
 * manufacturer out of `$SYS/` and out of each other's namespaces.
 */
export function topicMatcher(filters: string[]): (topic: string) => boolean {
  const patterns = filters.map((f) => {
    const levels = f.split('/').map((l) => (l === '+' ? '[^/$+#]+' : l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    return new RegExp(`^${levels.join('/')}$`);
  });
  return (topic) => patterns.some((p) => p.test(topic));
}

/** The message type of a topic: its last level. */
export function messageTypeOf(topic: string): string {
  return topic.slice(topic.lastIndexOf('/') + 1);
}

/** The VIN a topic names at the manifest's `vinTopicLevel`, or null when the transport names none. */
export function vinOfTopic(topic: string | undefined, level: number | undefined): string | null {
  if (topic === undefined || level === undefined) return null;
  return topic.split('/')[level] ?? null;
}
