/**
 * The fields that most forms share (the two parties, their addresses and TINs, bookkeeping fields),
 * described once. `{S}` and `{R}` in a label stand for the form's sender and recipient words
 * (PAYER, EMPLOYER, ...), written as the IRS forms write them.
 */
export interface CommonField {
  readonly label: string;
  /** Letter box on the W-2 (a-f); other forms leave these boxes unnumbered. */
  readonly w2Box?: string;
  readonly required?: boolean;
  readonly frequentUse?: boolean;
  readonly maxStringLength?: number;
  readonly sampleValue?: string;
}

export const COMMON_FIELDS: Readonly<Record<string, CommonField>> = {
  senderName: { label: "{S}'S name", w2Box: 'c', required: true, frequentUse: true, sampleValue: 'Tiberman, Allor, and Kaines, LLC' },
  senderAddress1: { label: "{S}'S street address", w2Box: 'c', required: true, frequentUse: true, sampleValue: '1073 Seventh Avenue' },
  senderAddress2: { label: "{S}'S street address (line 2)", w2Box: 'c', sampleValue: 'Suite 14C' },
  senderCity: { label: "{S}'S city or town", w2Box: 'c', required: true, frequentUse: true, sampleValue: 'New York' },
  senderState: { label: "{S}'S state", w2Box: 'c', required: true, frequentUse: true, sampleValue: 'NY' },
  senderZipCode: { label: "{S}'S ZIP code", w2Box: 'c', required: true, frequentUse: true, sampleValue: '10019' },
  senderPhoneNumber: { label: "{S}'S telephone no.", sampleValue: '2125552315' },
  senderTin: { label: "{S}'S TIN", w2Box: 'b', required: true, frequentUse: true, sampleValue: '111123456' },
  recipientTin: { label: "{R}'S TIN", w2Box: 'a', required: true, frequentUse: true, sampleValue: '200213492' },
  recipientTinType: { label: "{R}'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN)", frequentUse: true, sampleValue: '2' },
  recipientFirstName: { label: "{R}'S first name", w2Box: 'e', frequentUse: true, sampleValue: 'Leif' },
  recipientMiddleName: { label: "{R}'S middle name", w2Box: 'e', sampleValue: 'A' },
  recipientLastName: { label: "{R}'S last name", w2Box: 'e', frequentUse: true, sampleValue: 'Babson' },
  recipientNameSuffix: { label: "{R}'S name suffix", w2Box: 'e', maxStringLength: 4, sampleValue: 'Sr' },
  recipientEntityName: { label: "{R}'S name (business or entity)", sampleValue: 'Babson Consulting LLC' },
  recipientBusinessName: { label: "{R}'S business name (doing business as)", sampleValue: 'Babson Design' },
  recipientAddress1: { label: "{R}'S street address", w2Box: 'f', required: true, frequentUse: true, sampleValue: '784 East 77th Street' },
  recipientAddress2: { label: "{R}'S street address (line 2)", w2Box: 'f', sampleValue: 'Apartment 1022' },
  recipientAddress3: { label: "{R}'S street address (line 3)", w2Box: 'f', sampleValue: 'Building B' },
  recipientCity: { label: "{R}'S city or town", w2Box: 'f', required: true, frequentUse: true, sampleValue: 'New York' },
  recipientState: { label: "{R}'S state", w2Box: 'f', required: true, frequentUse: true, sampleValue: 'NY' },
  recipientZipCode: { label: "{R}'S ZIP code", w2Box: 'f', required: true, frequentUse: true, sampleValue: '10162' },
  accountNumber: { label: 'Account number (see instructions)', maxStringLength: 30, sampleValue: 'ACCT-0042' },
  corrected: { label: 'CORRECTED (if checked)', sampleValue: 'false' },
  taxYear: { label: 'Tax year', frequentUse: true, sampleValue: '2025' },
  tags: { label: 'Tags (for your own use; not printed on the form)', frequentUse: true, sampleValue: '["test", "send for review"]' },
  uploaderId: { label: 'Uploader ID (your own unique identifier for the statement)', frequentUse: true, maxStringLength: 50, sampleValue: '23911' },
};

/** The recipient must be named one way or the other: a person's first and last name, or an entity. */
export const RECIPIENT_NAME_FIELDS = { person: ['recipientFirstName', 'recipientLastName'], entity: 'recipientEntityName' } as const;
