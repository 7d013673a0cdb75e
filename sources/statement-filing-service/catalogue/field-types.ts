/**
 * How a field's definition is derived from its name and GraphQL type: its `dataType` (one of the
 * spec's 12 values), its length limits and its sample value. Kept as rules rather than a table of
 * ~600 field entries, so that the 12 forms stay consistent with each other.
 */
export const DATA_TYPES = [
  'array', 'boolean', 'character', 'date', 'decimal', 'integer',
  'money', 'phone_number', 'state', 'text', 'tin', 'zip_code',
] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** The GraphQL types that `forms.json` uses for statement fields. */
export type GraphqlFieldType = 'String' | 'Boolean' | 'Int' | 'Float' | 'Date' | '[String]';

/** Strings that are identifiers or words rather than amounts. */
const TEXT_FIELD = /(Name|NameSuffix|Address\d|City|^accountNumber|^controlNumber|^verificationCode|Rtn|CusipNo|CountryOrPoss|^stateId\d?|Code\d?|Codes|^uploaderId)$/;

export function dataTypeOf(name: string, type: GraphqlFieldType): DataType {
  switch (type) {
    case 'Boolean': return 'boolean';
    case 'Int': return 'integer';
    case 'Float': return 'decimal';
    case 'Date': return 'date';
    case '[String]': return 'array';
    case 'String': break;
  }
  if (name.endsWith('TinType')) return 'character';
  if (name.endsWith('Tin')) return 'tin';
  if (name.endsWith('ZipCode')) return 'zip_code';
  if (name.endsWith('PhoneNumber')) return 'phone_number';
  if (/State$|^stateAbbreviation\d?$/.test(name)) return 'state';
  if (TEXT_FIELD.test(name)) return 'text';
  return 'money';
}

const TEXT_LIMITS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(box12Code\d|distributionCodes|lateContributionCode|repaymentCode|assetCode)$/, 2],
  [/^(senderRtn|taxExemptCusipNo)$/, 9],
  [/^verificationCode$/, 19],
  [/^stateId\d?$/, 20],
  [/^otherCode\d$/, 20],
];

export function maxStringLengthOf(name: string, dataType: DataType, override?: number): number | null {
  if (dataType !== 'text') return null;
  if (override !== undefined) return override;
  return TEXT_LIMITS.find(([pattern]) => pattern.test(name))?.[1] ?? 40;
}

export function maxArrayLengthOf(name: string, dataType: DataType): number | null {
  if (dataType !== 'array') return null;
  return name === 'tags' ? 10 : name === 'corporationInfo' ? 5 : 4;
}

const SAMPLES_BY_NAME: Readonly<Record<string, string>> = {
  numberSharesTransferred: '100', numberProperties: '1', lateContributionYear: '2024',
  firstYearDesignatedRoth: '2019', box12Code1: 'D', box12Code2: 'DD', box12Code3: 'W', box12Code4: 'AA',
  distributionCodes: '7', lateContributionCode: 'FD', repaymentCode: 'QD', assetCode: 'A',
  otherCode1: 'Union dues', otherCode2: 'SDI', otherCode3: 'NYSDI', otherCode4: 'FLI',
  controlNumber: 'A1234', verificationCode: 'ABCD-1234-EFGH-567', localityName: 'NYC',
  senderRtn: '021000021', taxExemptCusipNo: '912828XZ8', foreignCountryOrPoss: 'Canada',
  propertyAddress: '["784 East 77th Street", "New York, NY 10162"]',
  corporationInfo: '["Big Apple Analytics", "179 N. 13th Street", "Brooklyn, NY 11249", "12-3456789"]',
};

const SAMPLES_BY_TYPE: Readonly<Record<DataType, string>> = {
  array: '["sample"]', boolean: 'true', character: '2', date: '2024-03-15', decimal: '12.5',
  integer: '1', money: '1178.03', phone_number: '2125552315', state: 'NY', text: 'Sample',
  tin: '111123456', zip_code: '10019',
};

export function sampleValueOf(name: string, dataType: DataType, override?: string): string {
  if (override !== undefined) return override;
  if (/^stateId\d?$/.test(name)) return '12-3456789';
  return SAMPLES_BY_NAME[name] ?? SAMPLES_BY_TYPE[dataType];
}
