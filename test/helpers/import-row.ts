// One valid import row (the body of POST /util/cards/import as a file row carries it), for the
// import tests to vary.
export function validImportRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    realId: 'LEGACY-1', active: true, startDate: '2024-01-01', endDate: '2028-12-31',
    firstName: 'Ada', lastName: 'Obi', middleName: '', email: 'ada@example.com',
    address1: '1 Marina', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
    birthDate: '1990-01-31', phone: '+2348012345678', institutionId: 'inst_1',
    card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', defaultPIN: '4821', bin: '506099', cardState: 'active' },
    returnSecure: false,
    ...overrides,
  };
}
