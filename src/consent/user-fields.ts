/**
 * The user data the portal collects (spec 4.1): VIN, first and last name, e-mail. Each is
 * checked the same way whether the consumer passed it or the user typed it.
 */
export const USER_FIELDS = ['vin', 'firstName', 'lastName', 'email'] as const;
export type UserField = (typeof USER_FIELDS)[number];
export type UserData = Record<UserField, string | null>;

export const FIELD_LABELS: Record<UserField, string> = {
  vin: 'Vehicle identification number (VIN)',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'E-mail address',
};

/** A VIN that no manufacturer connected to the service claims. */
export const NO_MANUFACTURER = 'No vehicle manufacturer connected to this service makes the vehicle with this VIN.';

const VIN = /^[A-HJ-NPR-Z0-9]{17}$/;
// Deliberately simple: one @, no spaces, a dot in the domain. The address is not used to send mail.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

/** Normalises one field (trim; VIN in upper case). Blank is "not given". */
export function normaliseField(field: UserField, raw: string): string | null {
  const v = raw.trim();
  if (v === '') return null;
  return field === 'vin' ? v.toUpperCase() : v;
}

/** Why a (normalised, non-null) value is not acceptable, or null when it is. */
export function fieldProblem(field: UserField, value: string): string | null {
  switch (field) {
    case 'vin':
      return VIN.test(value) ? null : 'A VIN has 17 characters: digits and capital letters except I, O and Q.';
    case 'email':
      return value.length <= 254 && EMAIL.test(value) ? null : 'Enter an e-mail address such as name@example.com.';
    default:
      return value.length <= 100 && !/[\u0000-\u001f\u007f]/.test(value) ? null : 'Enter at most 100 printable characters.';
  }
}
