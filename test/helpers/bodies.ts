// Whole request bodies of the API's types, for tests of the client that send one and look only at
// where it went (or at one field of it): typed by the schemas, no server checks them here.
import type { CreateCardBody, UpdateCustomerBody } from '../../src/api/schemas.js';

export function createCardBodyOf(overrides: Partial<CreateCardBody> = {}): CreateCardBody {
  return {
    cardProgram: 'p', referenceCode: 'REF-1', pinEnabled: true, embossingName: 'ADA OBI',
    defaultPIN: { encryptedData: 'ab12', publicKeyFingerprint: 'f'.repeat(64) },
    account: { currency: '566', bankCode: '058', type: 'savings', number: '0123456789' },
    customer: { firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678' },
    startDate: '2026-11-22T00:00:00.000Z', expiryDate: '2029-11-22T00:00:00.000Z',
    ...overrides,
  };
}

export function updateCustomerBodyOf(overrides: Partial<UpdateCustomerBody> = {}): UpdateCustomerBody {
  return {
    firstName: 'A', middleName: '', lastName: 'Obi', emailAddress: 'ada@example.com', phoneNumber: '+2348012345678',
    dateOfBirth: '1990-05-17T00:00:00.000Z',
    address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' },
    ...overrides,
  };
}
