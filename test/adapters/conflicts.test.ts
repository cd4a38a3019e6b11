import { describe, expect, it } from 'vitest';
import { filtersOverlap } from '../../src/transports/mqtt/kind.ts';
import { endpointProblem } from '../../src/adapters/endpoint.ts';

describe('topic filters of two manufacturers', () => {
  it.each([
    ['virtual/v1/+/telemetry', '+/v1/+/telemetry', true],
    ['virtual/v1/+/telemetry', 'virtual/v1/+/telemetry', true],
    ['a/+/x', 'a/b/+', true],
    ['virtual/v1/+/telemetry', 'acme/v1/+/telemetry', false],
    ['virtual/v1/+/telemetry', 'virtual/v1/+/event', false],
    ['+/v1/+/telemetry', '+/v1/+/+/telemetry', false],
  ])('%s and %s overlap: %s', (a, b, overlap) => {
    expect(filtersOverlap(a, b)).toBe(overlap);
    expect(filtersOverlap(b, a)).toBe(overlap);
  });
});

describe('OAuth endpoints of a manifest', () => {
  it.each(['/oem/virtual/token', 'https://auth.acme.example/token', 'http://localhost:8081/token', 'http://127.0.0.1/t', 'http://[::1]:9000/t'])('accepts %s', (v) => {
    expect(endpointProblem(v)).toBeNull();
  });
  it.each(['http://auth.acme.example/token', 'auth.acme.example/token', '//auth.acme.example/token', 'ftp://x/y', 'https://user:pw@x.example/t', 'https://x.example/t#frag', ' /oem/x'])('refuses %s', (v) => {
    expect(endpointProblem(v)).toMatch(/must be an https URL or an absolute path/);
  });
});
