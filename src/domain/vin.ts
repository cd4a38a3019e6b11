/**
 * A VIN as api-contract section 5 accepts it: 17 characters, digits and capital letters
 * without I, O and Q (ISO 3779). No check-digit test: virtual and many non-North-American VINs
 * do not carry one.
 */
export const VIN_PATTERN = /^[A-HJ-NPR-Z0-9]{17}$/;

export function isValidVin(value: unknown): value is string {
  return typeof value === 'string' && VIN_PATTERN.test(value);
}
