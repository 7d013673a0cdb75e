/** Shared statement data and documents for the emulator tests. */

export const VALID_NEC = {
  uploaderId: 'nec-1', nonemployeeComp: '1178.03', recipientFirstName: 'Leif', recipientLastName: 'Babson',
  recipientTin: '200213492', recipientTinType: '2', recipientAddress1: '784 East 77th Street', recipientCity: 'New York',
  recipientState: 'NY', recipientZipCode: '10162', senderName: 'Tiberman, Allor, and Kaines, LLC', senderTin: '111123456',
  senderAddress1: '1073 Seventh Avenue', senderCity: 'New York', senderState: 'NY', senderZipCode: '10019',
};
export const ADD_NEC = `mutation($s: [F1099necInput!]!) { addF1099necStatements(statements: $s) {
  errors statements { recordNumber messages statement { otxId uploaderId statementValid validationMessages status statusDescription nonemployeeComp } } } }`;
export const UPDATE_NEC = `mutation($s: [F1099necUpdateInput!]!) { updateF1099necStatements(statements: $s) {
  errors statements { recordNumber messages statement { otxId uploaderId nonemployeeComp recipientCity statementValid validationMessages } } } }`;
export const FINALIZE = `mutation($u: [String!], $card: CreditCardInput) { finalizeStatements(uploaderIds: $u, creditCard: $card) {
  errors successCount messages { messages otxId uploaderId } } }`;
export const SUBMIT = 'mutation($u: [String!]) { submitStatements(uploaderIds: $u) { errors successCount messages { messages uploaderId } } }';
export const STATUS = 'query($u: [String!]) { getStatements(uploaderIds: $u) { statements { nodes { uploaderId status statusDescription submissionStatus submissionStatusDescription taFileDate otxSubmissionId } } } }';

/** A card that passes the production checks (Luhn, future expiry). */
export const VALID_CARD = {
  firstName: 'Annalise', lastName: 'Havemeyer', companyName: 'Big Apple Analytics', address: '179 N. 13th Street, Suite 14C',
  city: 'Brooklyn', state: 'NY', zipCode: '11249', cardNumber: '4242424242424242', cardExpiration: '1239', cvv: '123',
};
