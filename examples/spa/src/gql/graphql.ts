/* eslint-disable */
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = T | null | undefined;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An ISO-8601 calendar date: YYYY-MM-DD. */
  Date: { input: string; output: string; }
};

export type CreditCardInput = {
  address: Scalars['String']['input'];
  /** MMYY */
  cardExpiration: Scalars['String']['input'];
  cardNumber: Scalars['String']['input'];
  city: Scalars['String']['input'];
  companyName?: InputMaybe<Scalars['String']['input']>;
  cvv: Scalars['String']['input'];
  firstName: Scalars['String']['input'];
  lastName: Scalars['String']['input'];
  state: Scalars['String']['input'];
  zipCode: Scalars['String']['input'];
};

/** Which upstream environment a session acts in. */
export type Environment =
  | 'PRODUCTION'
  | 'SANDBOX';

/** A Form 1098 statement to add, or the fields to change in an update. */
export type F1098Input = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 11: Mortgage acquisition date (date) */
  mortgageAcqDate?: InputMaybe<Scalars['Date']['input']>;
  /** Box 5: Mortgage insurance premiums (money) */
  mortgageInsurancePremiums?: InputMaybe<Scalars['String']['input']>;
  /** Box 1: Mortgage interest received from payer(s)/borrower(s) (money) */
  mortgageInterest?: InputMaybe<Scalars['String']['input']>;
  /** Box 9: Number of properties securing the mortgage (integer) */
  numberProperties?: InputMaybe<Scalars['Int']['input']>;
  /** Box 3: Mortgage origination date (date) */
  originationDate?: InputMaybe<Scalars['Date']['input']>;
  /** Box 10: Other (money) */
  other?: InputMaybe<Scalars['String']['input']>;
  /** Box 2: Outstanding mortgage principal (money) */
  outstandingPrincipal?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Points paid on purchase of principal residence (money) */
  points?: InputMaybe<Scalars['String']['input']>;
  /** Box 8: Address or description of property securing mortgage (array) */
  propertyAddress?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Box 7: Address of property securing mortgage is the same as payer's/borrower's address (boolean) */
  propertyAddressSameAsBorrower?: InputMaybe<Scalars['Boolean']['input']>;
  /** PAYER/BORROWER'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** PAYER/BORROWER'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 4: Refund of overpaid interest (money) */
  refundOverpaidInterest?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1098 statement (by otxId or uploaderId) and the fields to change. */
export type F1098UpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1098Input;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1098-E statement to add, or the fields to change in an update. */
export type F1098eInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 2: Box 1 does not include loan origination fees and/or capitalized interest (boolean) */
  box1DoesNotIncludeFees?: InputMaybe<Scalars['Boolean']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 1: Student loan interest received by lender (money) */
  interestReceived?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** BORROWER'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT/LENDER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1098-E statement (by otxId or uploaderId) and the fields to change. */
export type F1098eUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1098eInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1098-T statement to add, or the fields to change in an update. */
export type F1098tInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Adjustments to scholarships or grants for a prior year (money) */
  adjustmentsScholarshipsGrants?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: Box 1 includes amounts for an academic period beginning January-March of the following year (boolean) */
  box1IncludesFollowingYear?: InputMaybe<Scalars['Boolean']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 9: Check if graduate student (boolean) */
  graduateStudent?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 8: Check if at least half-time student (boolean) */
  halfTimeStudent?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 10: Insurance contract reimbursement/refund (money) */
  insuranceReimbursementsRefunds?: InputMaybe<Scalars['String']['input']>;
  /** Box 1: Payments received for qualified tuition and related expenses (money) */
  paymentsReceivedTuition?: InputMaybe<Scalars['String']['input']>;
  /** Box 4: Adjustments made for a prior year (money) */
  priorYearAdjustments?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** STUDENT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Check if you have changed your reporting method (boolean) */
  reportingMethodChanged?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 5: Scholarships or grants (money) */
  scholarshipsGrants?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** FILER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1098-T statement (by otxId or uploaderId) and the fields to change. */
export type F1098tUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1098tInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1099-DIV statement to add, or the fields to change in an update. */
export type F1099divInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 2a: Total capital gain distributions (money) */
  capitalGainDistributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 9: Cash liquidation distributions (money) */
  cashLiquidationDistributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 2d: Collectibles (28%) gain (money) */
  collectiblesGain?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 12: Exempt-interest dividends (money) */
  exemptInterestDividends?: InputMaybe<Scalars['String']['input']>;
  /** Box 11: FATCA filing requirement (boolean) */
  fatcaRequirement?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 4: Federal income tax withheld (money) */
  federalTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 8: Foreign country or U.S. possession (text) */
  foreignCountryOrPoss?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: Foreign tax paid (money) */
  foreignTaxPaid?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Investment expenses (money) */
  investmentExpenses?: InputMaybe<Scalars['String']['input']>;
  /** Box 10: Noncash liquidation distributions (money) */
  noncashLiquidationDistributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Nondividend distributions (money) */
  nondividendDistributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 1a: Total ordinary dividends (money) */
  ordinaryDividends?: InputMaybe<Scalars['String']['input']>;
  /** Box 13: Specified private activity bond interest dividends (money) */
  privateActivityBondDividends?: InputMaybe<Scalars['String']['input']>;
  /** Box 1b: Qualified dividends (money) */
  qualifiedDividends?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: Section 199A dividends (money) */
  section199aDividends?: InputMaybe<Scalars['String']['input']>;
  /** Box 2f: Section 897 capital gain (money) */
  section897CapitalGain?: InputMaybe<Scalars['String']['input']>;
  /** Box 2e: Section 897 ordinary dividends (money) */
  section897OrdinaryDividends?: InputMaybe<Scalars['String']['input']>;
  /** Box 2c: Section 1202 gain (money) */
  section1202Gain?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: State (state) */
  stateAbbreviation1?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: State (second state) (state) */
  stateAbbreviation2?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: Payer's state no. (text) */
  stateId1?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: Payer's state no. (second state) (text) */
  stateId2?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: State tax withheld (money) */
  stateTaxWithheld1?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: State tax withheld (second state) (money) */
  stateTaxWithheld2?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Box 2b: Unrecaptured Section 1250 gain (money) */
  unrecapturedSec1250Gain?: InputMaybe<Scalars['String']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1099-DIV statement (by otxId or uploaderId) and the fields to change. */
export type F1099divUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1099divInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1099-INT statement to add, or the fields to change in an update. */
export type F1099intInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 11: Bond premium (money) */
  bondPremium?: InputMaybe<Scalars['String']['input']>;
  /** Box 13: Bond premium on tax-exempt bond (money) */
  bondPremiumTaxExempt?: InputMaybe<Scalars['String']['input']>;
  /** Box 12: Bond premium on Treasury obligations (money) */
  bondPremiumTreasury?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 2: Early withdrawal penalty (money) */
  earlyWithdrawalPenalty?: InputMaybe<Scalars['String']['input']>;
  /** FATCA filing requirement (boolean) */
  fatcaRequirement?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 4: Federal income tax withheld (money) */
  federalTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: Foreign country or U.S. possession (text) */
  foreignCountryOrPoss?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Foreign tax paid (money) */
  foreignTaxPaid?: InputMaybe<Scalars['String']['input']>;
  /** Box 1: Interest income (money) */
  interestIncome?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Interest on U.S. Savings Bonds and Treasury obligations (money) */
  interestSavingsBonds?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: Investment expenses (money) */
  investmentExpenses?: InputMaybe<Scalars['String']['input']>;
  /** Box 10: Market discount (money) */
  marketDiscount?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** Payer's RTN (optional) (text) */
  senderRtn?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 9: Specified private activity bond interest (money) */
  specifiedBondInterest?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: State (state) */
  stateAbbreviation1?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: State (second state) (state) */
  stateAbbreviation2?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: Payer's state no. (text) */
  stateId1?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: Payer's state no. (second state) (text) */
  stateId2?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: State tax withheld (money) */
  stateTaxWithheld1?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: State tax withheld (second state) (money) */
  stateTaxWithheld2?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Box 14: Tax-exempt and tax credit bond CUSIP no. (text) */
  taxExemptCusipNo?: InputMaybe<Scalars['String']['input']>;
  /** Box 8: Tax-exempt interest (money) */
  taxExemptInterest?: InputMaybe<Scalars['String']['input']>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1099-INT statement (by otxId or uploaderId) and the fields to change. */
export type F1099intUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1099intInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1099-MISC statement to add, or the fields to change in an update. */
export type F1099miscInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 9: Crop insurance proceeds (money) */
  cropInsuranceProceeds?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Excess golden parachute payments (money) */
  excessGoldenParachute?: InputMaybe<Scalars['String']['input']>;
  /** Box 13: FATCA filing requirement (boolean) */
  fatcaRequirement?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 4: Federal income tax withheld (money) */
  federalTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 11: Fish purchased for resale (money) */
  fishPurchasedResale?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: Fishing boat proceeds (money) */
  fishingBoatProceeds?: InputMaybe<Scalars['String']['input']>;
  /** Box 10: Gross proceeds paid to an attorney (money) */
  grossProceedsAttorney?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Medical and health care payments (money) */
  medicalPayments?: InputMaybe<Scalars['String']['input']>;
  /** Nonemployee compensation (tax years before 2020) (money) */
  nonemployeeCompensation?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: Nonqualified deferred compensation (money) */
  nonqualDeferredComp?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Other income (money) */
  otherIncome?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S business name (doing business as) (text) */
  recipientBusinessName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 1: Rents (money) */
  rents?: InputMaybe<Scalars['String']['input']>;
  /** Box 2: Royalties (money) */
  royalties?: InputMaybe<Scalars['String']['input']>;
  /** Box 12: Section 409A deferrals (money) */
  section409aDeferrals?: InputMaybe<Scalars['String']['input']>;
  /** Section 409A income (tax years before 2020) (money) */
  section409aIncome?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: Payer made direct sales totaling $5,000 or more of consumer products to recipient for resale (boolean) */
  senderMadeDirectSales?: InputMaybe<Scalars['Boolean']['input']>;
  /** PAYER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: State (state) */
  stateAbbreviation1?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: State (second state) (state) */
  stateAbbreviation2?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: Payer's state no. (text) */
  stateId1?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: Payer's state no. (second state) (text) */
  stateId2?: InputMaybe<Scalars['String']['input']>;
  /** Box 18: State income (money) */
  stateIncome1?: InputMaybe<Scalars['String']['input']>;
  /** Box 18: State income (second state) (money) */
  stateIncome2?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: State tax withheld (money) */
  stateTaxWithheld1?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: State tax withheld (second state) (money) */
  stateTaxWithheld2?: InputMaybe<Scalars['String']['input']>;
  /** Box 8: Substitute payments in lieu of dividends or interest (money) */
  substitutePayments?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1099-MISC statement (by otxId or uploaderId) and the fields to change. */
export type F1099miscUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1099miscInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1099-NEC statement to add, or the fields to change in an update. */
export type F1099necInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** FATCA filing requirement (boolean) */
  fatcaRequirement?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 4: Federal income tax withheld (money) */
  federalTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 1: Nonemployee compensation (money) */
  nonemployeeComp?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S business name (doing business as) (text) */
  recipientBusinessName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** Box 2: Payer made direct sales totaling $5,000 or more of consumer products to recipient for resale (boolean) */
  senderMadeDirectSales?: InputMaybe<Scalars['Boolean']['input']>;
  /** PAYER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: State (state) */
  stateAbbreviation1?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: State (second state) (state) */
  stateAbbreviation2?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Payer's state no. (text) */
  stateId1?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Payer's state no. (second state) (text) */
  stateId2?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: State income (money) */
  stateIncome1?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: State income (second state) (money) */
  stateIncome2?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: State tax withheld (money) */
  stateTaxWithheld1?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: State tax withheld (second state) (money) */
  stateTaxWithheld2?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 1099-NEC statement (by otxId or uploaderId) and the fields to change. */
export type F1099necUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1099necInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 1099-R statement to add, or the fields to change in an update. */
export type F1099rInput = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 10: Amount allocable to IRR within 5 years (money) */
  amountAllocableIrr?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Capital gain (included in box 2a) (money) */
  capitalGain?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 13: Date of payment (date) */
  dateOfPayment?: InputMaybe<Scalars['Date']['input']>;
  /** Box 7: Distribution code(s) (text) */
  distributionCodes?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: Employee contributions/Designated Roth contributions or insurance premiums (money) */
  employeeContributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 12: FATCA filing requirement (boolean) */
  fatcaRequirement?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 4: Federal income tax withheld (money) */
  federalTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 11: 1st year of designated Roth contributions (integer) */
  firstYearDesignatedRoth?: InputMaybe<Scalars['Int']['input']>;
  /** Box 1: Gross distribution (money) */
  grossDistribution?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: IRA/SEP/SIMPLE (boolean) */
  iraSepSimple?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 19: Local distribution (money) */
  localDistribution?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: Local tax withheld (money) */
  localTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 18: Name of locality (text) */
  localityName?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Net unrealized appreciation in employer's securities (money) */
  netUnrealizedAppreciation?: InputMaybe<Scalars['String']['input']>;
  /** Box 8: Other (money) */
  other?: InputMaybe<Scalars['String']['input']>;
  /** Box 8: Other (percent) (decimal) */
  otherPercent?: InputMaybe<Scalars['Float']['input']>;
  /** RECIPIENT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** RECIPIENT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S telephone no. (phone_number) */
  senderPhoneNumber?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** PAYER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: State (state) */
  stateAbbreviation?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: State distribution (money) */
  stateDistribution?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: Payer's state no. (text) */
  stateId?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: State tax withheld (money) */
  stateTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Box 2a: Taxable amount (money) */
  taxableAmount?: InputMaybe<Scalars['String']['input']>;
  /** Box 2b: Taxable amount not determined (boolean) */
  taxableAmountNotDetermined?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 2b: Total distribution (boolean) */
  totalDistribution?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 9b: Total employee contributions (money) */
  totalEmployeeContributions?: InputMaybe<Scalars['String']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
  /** Box 9a: Your percentage of total distribution (decimal) */
  yourPercentageTotal?: InputMaybe<Scalars['Float']['input']>;
};

/** Identifies one Form 1099-R statement (by otxId or uploaderId) and the fields to change. */
export type F1099rUpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F1099rInput;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 3921 statement to add, or the fields to change in an update. */
export type F3921Input = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: If other than transferor, name, address, and EIN of corporation whose stock is being transferred (array) */
  corporationInfo?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 2: Date option exercised (date) */
  dateOptionExercised?: InputMaybe<Scalars['Date']['input']>;
  /** Box 1: Date option granted (date) */
  dateOptionGranted?: InputMaybe<Scalars['Date']['input']>;
  /** Box 3: Exercise price per share (money) */
  exercisePricePerShare?: InputMaybe<Scalars['String']['input']>;
  /** Box 4: Fair market value per share on exercise date (money) */
  fmvPerShare?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: No. of shares transferred (integer) */
  numberSharesTransferred?: InputMaybe<Scalars['Int']['input']>;
  /** EMPLOYEE'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 3921 statement (by otxId or uploaderId) and the fields to change. */
export type F3921UpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F3921Input;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 3922 statement to add, or the fields to change in an update. */
export type F3922Input = {
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 2: Date option exercised (date) */
  dateOptionExercised?: InputMaybe<Scalars['Date']['input']>;
  /** Box 1: Date option granted (date) */
  dateOptionGranted?: InputMaybe<Scalars['Date']['input']>;
  /** Box 7: Date legal title transferred (date) */
  dateTitleTransferred?: InputMaybe<Scalars['Date']['input']>;
  /** Box 8: Exercise price per share determined as if the option was exercised on the date shown in box 1 (money) */
  exercisePpsIfOptionExercisedGrantDate?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: Exercise price paid per share (money) */
  exercisePricePerShare?: InputMaybe<Scalars['String']['input']>;
  /** Box 4: Fair market value per share on exercise date (money) */
  fmvExerciseDate?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Fair market value per share on grant date (money) */
  fmvGrantDate?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: No. of shares transferred (integer) */
  numberSharesTransferred?: InputMaybe<Scalars['Int']['input']>;
  /** EMPLOYEE'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** EMPLOYEE'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** CORPORATION'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 3922 statement (by otxId or uploaderId) and the fields to change. */
export type F3922UpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F3922Input;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form 5498 statement to add, or the fields to change in an update. */
export type F5498Input = {
  /** Box 5: Fair market value of account (money) */
  accountFmv?: InputMaybe<Scalars['String']['input']>;
  /** Account number (see instructions) (text) */
  accountNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 15a: FMV of certain specified assets (money) */
  assetAmount?: InputMaybe<Scalars['String']['input']>;
  /** Box 15b: Code(s) (text) */
  assetCode?: InputMaybe<Scalars['String']['input']>;
  /** CORRECTED (if checked) (boolean) */
  corrected?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 7: IRA (boolean) */
  ira?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 1: IRA contributions (other than amounts in boxes 2-4, 8-10, 13a, 14a, and 15a) (money) */
  iraContributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 13a: Postponed/late contribution (money) */
  lateContributionAmount?: InputMaybe<Scalars['String']['input']>;
  /** Box 13c: Code (text) */
  lateContributionCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 13b: Year (integer) */
  lateContributionYear?: InputMaybe<Scalars['Int']['input']>;
  /** Box 6: Life insurance cost included in box 1 (money) */
  lifeInsuranceCost?: InputMaybe<Scalars['String']['input']>;
  /** Box 4: Recharacterized contributions (money) */
  recharacterizedContributions?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S name (business or entity) (text) */
  recipientEntityName?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S TIN type (1 EIN, 2 SSN, 3 ITIN, 4 ATIN) (character) */
  recipientTinType?: InputMaybe<Scalars['String']['input']>;
  /** PARTICIPANT'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 14a: Repayments (money) */
  repaymentAmount?: InputMaybe<Scalars['String']['input']>;
  /** Box 14b: Code (text) */
  repaymentCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 12b: RMD amount (money) */
  rmdAmount?: InputMaybe<Scalars['String']['input']>;
  /** Box 12a: RMD date (date) */
  rmdDate?: InputMaybe<Scalars['Date']['input']>;
  /** Box 11: Check if RMD for next year (boolean) */
  rmdNextYear?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 2: Rollover contributions (money) */
  rolloverContributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: Roth IRA (boolean) */
  roth?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 10: Roth IRA contributions (money) */
  rothContributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Roth IRA conversion amount (money) */
  rothConversion?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** TRUSTEE OR ISSUER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: SEP (boolean) */
  sep?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 8: SEP contributions (money) */
  sepContributions?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: SIMPLE (boolean) */
  simple?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box 9: SIMPLE contributions (money) */
  simpleContributions?: InputMaybe<Scalars['String']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form 5498 statement (by otxId or uploaderId) and the fields to change. */
export type F5498UpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: F5498Input;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

/** A Form W-2 statement to add, or the fields to change in an update. */
export type Fw2Input = {
  /** Box 8: Allocated tips (money) */
  allocatedTips?: InputMaybe<Scalars['String']['input']>;
  /** Box 12a: Amount (money) */
  box12Amount1?: InputMaybe<Scalars['String']['input']>;
  /** Box 12b: Amount (money) */
  box12Amount2?: InputMaybe<Scalars['String']['input']>;
  /** Box 12c: Amount (money) */
  box12Amount3?: InputMaybe<Scalars['String']['input']>;
  /** Box 12d: Amount (money) */
  box12Amount4?: InputMaybe<Scalars['String']['input']>;
  /** Box 12a: Code (text) */
  box12Code1?: InputMaybe<Scalars['String']['input']>;
  /** Box 12b: Code (text) */
  box12Code2?: InputMaybe<Scalars['String']['input']>;
  /** Box 12c: Code (text) */
  box12Code3?: InputMaybe<Scalars['String']['input']>;
  /** Box 12d: Code (text) */
  box12Code4?: InputMaybe<Scalars['String']['input']>;
  /** Box d: Control number (text) */
  controlNumber?: InputMaybe<Scalars['String']['input']>;
  /** Box 10: Dependent care benefits (money) */
  dependentCareBenefits?: InputMaybe<Scalars['String']['input']>;
  /** Box 2: Federal income tax withheld (money) */
  federalTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 19: Local income tax (money) */
  localIncomeTax?: InputMaybe<Scalars['String']['input']>;
  /** Box 18: Local wages, tips, etc. (money) */
  localWages?: InputMaybe<Scalars['String']['input']>;
  /** Box 20: Locality name (text) */
  localityName?: InputMaybe<Scalars['String']['input']>;
  /** Box 6: Medicare tax withheld (money) */
  medicareTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 5: Medicare wages and tips (money) */
  medicareWages?: InputMaybe<Scalars['String']['input']>;
  /** Box 11: Nonqualified plans (money) */
  nonqualifiedPlans?: InputMaybe<Scalars['String']['input']>;
  /** Box 11: Nonqualified plans (not section 457) (money) */
  nonqualifiedPlansNonSec457?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (amount) (money) */
  otherAmount1?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (amount) (money) */
  otherAmount2?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (amount) (money) */
  otherAmount3?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (amount) (money) */
  otherAmount4?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (description) (text) */
  otherCode1?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (description) (text) */
  otherCode2?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (description) (text) */
  otherCode3?: InputMaybe<Scalars['String']['input']>;
  /** Box 14: Other (description) (text) */
  otherCode4?: InputMaybe<Scalars['String']['input']>;
  /** Box f: EMPLOYEE'S street address (text) */
  recipientAddress1?: InputMaybe<Scalars['String']['input']>;
  /** Box f: EMPLOYEE'S street address (line 2) (text) */
  recipientAddress2?: InputMaybe<Scalars['String']['input']>;
  /** Box f: EMPLOYEE'S street address (line 3) (text) */
  recipientAddress3?: InputMaybe<Scalars['String']['input']>;
  /** Box f: EMPLOYEE'S city or town (text) */
  recipientCity?: InputMaybe<Scalars['String']['input']>;
  /** Box e: EMPLOYEE'S first name (text) */
  recipientFirstName?: InputMaybe<Scalars['String']['input']>;
  /** Box e: EMPLOYEE'S last name (text) */
  recipientLastName?: InputMaybe<Scalars['String']['input']>;
  /** Box e: EMPLOYEE'S middle name (text) */
  recipientMiddleName?: InputMaybe<Scalars['String']['input']>;
  /** Box e: EMPLOYEE'S name suffix (text) */
  recipientNameSuffix?: InputMaybe<Scalars['String']['input']>;
  /** Box f: EMPLOYEE'S state (state) */
  recipientState?: InputMaybe<Scalars['String']['input']>;
  /** Box a: EMPLOYEE'S TIN (tin) */
  recipientTin?: InputMaybe<Scalars['String']['input']>;
  /** Box f: EMPLOYEE'S ZIP code (zip_code) */
  recipientZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 13: Retirement plan (boolean) */
  retirementPlan?: InputMaybe<Scalars['Boolean']['input']>;
  /** Box c: EMPLOYER'S street address (text) */
  senderAddress1?: InputMaybe<Scalars['String']['input']>;
  /** Box c: EMPLOYER'S street address (line 2) (text) */
  senderAddress2?: InputMaybe<Scalars['String']['input']>;
  /** Box c: EMPLOYER'S city or town (text) */
  senderCity?: InputMaybe<Scalars['String']['input']>;
  /** Box c: EMPLOYER'S name (text) */
  senderName?: InputMaybe<Scalars['String']['input']>;
  /** Box c: EMPLOYER'S state (state) */
  senderState?: InputMaybe<Scalars['String']['input']>;
  /** Box b: EMPLOYER'S TIN (tin) */
  senderTin?: InputMaybe<Scalars['String']['input']>;
  /** Box c: EMPLOYER'S ZIP code (zip_code) */
  senderZipCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 4: Social security tax withheld (money) */
  socialSecurityTaxWithheld?: InputMaybe<Scalars['String']['input']>;
  /** Box 7: Social security tips (money) */
  socialSecurityTips?: InputMaybe<Scalars['String']['input']>;
  /** Box 3: Social security wages (money) */
  socialSecurityWages?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: State (state) */
  stateAbbreviation?: InputMaybe<Scalars['String']['input']>;
  /** Box 15: Employer's state ID number (text) */
  stateId?: InputMaybe<Scalars['String']['input']>;
  /** Box 17: State income tax (money) */
  stateIncomeTax?: InputMaybe<Scalars['String']['input']>;
  /** Box 16: State wages, tips, etc. (money) */
  stateWages?: InputMaybe<Scalars['String']['input']>;
  /** Box 13: Statutory employee (boolean) */
  statutoryEmployee?: InputMaybe<Scalars['Boolean']['input']>;
  /** Tags (for your own use; not printed on the form) (array) */
  tags?: InputMaybe<Array<InputMaybe<Scalars['String']['input']>>>;
  /** Tax year (integer) */
  taxYear?: InputMaybe<Scalars['Int']['input']>;
  /** Box 13: Third-party sick pay (boolean) */
  thirdPartySickPay?: InputMaybe<Scalars['Boolean']['input']>;
  /** Uploader ID (your own unique identifier for the statement) (text) */
  uploaderId?: InputMaybe<Scalars['String']['input']>;
  /** Box 9: Verification code (text) */
  verificationCode?: InputMaybe<Scalars['String']['input']>;
  /** Box 1: Wages, tips, other compensation (money) */
  wagesTipsOtherComp?: InputMaybe<Scalars['String']['input']>;
};

/** Identifies one Form W-2 statement (by otxId or uploaderId) and the fields to change. */
export type Fw2UpdateInput = {
  otxId?: InputMaybe<Scalars['String']['input']>;
  statement: Fw2Input;
  uploaderId?: InputMaybe<Scalars['String']['input']>;
};

export type SessionQueryVariables = Exact<{ [key: string]: never; }>;


export type SessionQuery = { __typename?: 'Query', session?: { __typename?: 'Session', uid: string, environment: Environment, expiresAt: string, idleExpiresAt: string, idleExpiresInSeconds: number } | null };

export type SessionLeftQueryVariables = Exact<{ [key: string]: never; }>;


export type SessionLeftQuery = { __typename?: 'Query', session?: { __typename?: 'Session', uid: string, environment: Environment, expiresAt: string, idleExpiresAt: string, idleExpiresInSeconds: number } | null };

export type LoginMutationVariables = Exact<{
  email: Scalars['String']['input'];
  password: Scalars['String']['input'];
  environment?: InputMaybe<Environment>;
}>;


export type LoginMutation = { __typename?: 'Mutation', login: { __typename?: 'Session', uid: string, environment: Environment, expiresAt: string, idleExpiresAt: string, idleExpiresInSeconds: number } };

export type LogoutMutationVariables = Exact<{ [key: string]: never; }>;


export type LogoutMutation = { __typename?: 'Mutation', logout: boolean };

export type StatementsQueryVariables = Exact<{
  first?: InputMaybe<Scalars['Int']['input']>;
}>;


export type StatementsQuery = { __typename?: 'Query', getStatements?: { __typename?: 'GetStatementsPayload', errors: Array<string>, statements?: { __typename?: 'StatementConnection', nodes?: Array<{ __typename?: 'Statement', otxId?: string | null, uploaderId?: string | null, formType?: string | null, taxYear?: number | null, recipientFirstName?: string | null, recipientLastName?: string | null, statusDescription?: string | null }> | null } | null } | null };

export type AddW2MutationVariables = Exact<{
  statements: Array<Fw2Input> | Fw2Input;
}>;


export type AddW2Mutation = { __typename?: 'Mutation', addFw2Statements?: { __typename?: 'AddFw2StatementsPayload', errors: Array<string>, statements?: Array<{ __typename?: 'Fw2StatementResult', messages: Array<string>, statement?: { __typename?: 'Fw2Statement', otxId?: string | null, uploaderId?: string | null } | null }> | null } | null };

export type StatementsByUploaderQueryVariables = Exact<{
  uploaderIds?: InputMaybe<Array<Scalars['String']['input']> | Scalars['String']['input']>;
}>;


export type StatementsByUploaderQuery = { __typename?: 'Query', getFw2Statements?: { __typename?: 'GetFw2StatementsPayload', errors: Array<string>, statements?: { __typename?: 'Fw2StatementConnection', nodes?: Array<{ __typename?: 'Fw2Statement', otxId?: string | null, uploaderId?: string | null }> | null } | null } | null };

export type SessionsQueryVariables = Exact<{ [key: string]: never; }>;


export type SessionsQuery = { __typename?: 'Query', sessions: Array<{ __typename?: 'SessionInfo', id: string, createdAt: string, lastSeenAt: string, userAgent?: string | null, current: boolean }> };

export type EndSessionMutationVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type EndSessionMutation = { __typename?: 'Mutation', endSession: boolean };

export type LogoutEverywhereMutationVariables = Exact<{
  keepCurrent?: InputMaybe<Scalars['Boolean']['input']>;
}>;


export type LogoutEverywhereMutation = { __typename?: 'Mutation', logoutEverywhere: number };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const SessionDocument = new TypedDocumentString(`
    query Session {
  session {
    uid
    environment
    expiresAt
    idleExpiresAt
    idleExpiresInSeconds
  }
}
    `, {"hash":"94189346491abc9e1fb80e712fe6154af397049af73e7999e35ef05ab51535cc"}) as unknown as TypedDocumentString<SessionQuery, SessionQueryVariables>;
export const SessionLeftDocument = new TypedDocumentString(`
    query SessionLeft {
  session(touch: false) {
    uid
    environment
    expiresAt
    idleExpiresAt
    idleExpiresInSeconds
  }
}
    `, {"hash":"d982876f80fea1b2b9d313435ca10e7f2187be683284fd690d226b8f078618cf"}) as unknown as TypedDocumentString<SessionLeftQuery, SessionLeftQueryVariables>;
export const LoginDocument = new TypedDocumentString(`
    mutation Login($email: String!, $password: String!, $environment: Environment) {
  login(email: $email, password: $password, environment: $environment) {
    uid
    environment
    expiresAt
    idleExpiresAt
    idleExpiresInSeconds
  }
}
    `, {"hash":"69cde3fc640da3062ebe1e176b548254604d43b6252c8d48b8d14f87f0610f1f"}) as unknown as TypedDocumentString<LoginMutation, LoginMutationVariables>;
export const LogoutDocument = new TypedDocumentString(`
    mutation Logout {
  logout
}
    `, {"hash":"cb1d14c1cc99a25294cfa4376de2402364cb32e6c038a11fb36cf0ebb3a5ce91"}) as unknown as TypedDocumentString<LogoutMutation, LogoutMutationVariables>;
export const StatementsDocument = new TypedDocumentString(`
    query Statements($first: Int) {
  getStatements(first: $first) {
    errors
    statements {
      nodes {
        otxId
        uploaderId
        formType
        taxYear
        recipientFirstName
        recipientLastName
        statusDescription
      }
    }
  }
}
    `, {"hash":"20f1d4d80945a753288e98a79840fdd23bf14240367cdc22ce89a45c4a10f90d"}) as unknown as TypedDocumentString<StatementsQuery, StatementsQueryVariables>;
export const AddW2Document = new TypedDocumentString(`
    mutation AddW2($statements: [Fw2Input!]!) {
  addFw2Statements(statements: $statements) {
    errors
    statements {
      messages
      statement {
        otxId
        uploaderId
      }
    }
  }
}
    `, {"hash":"96e685a76254bb2d532823b2af96ef4ed71339a8ca1face115dec7d72d04121a"}) as unknown as TypedDocumentString<AddW2Mutation, AddW2MutationVariables>;
export const StatementsByUploaderDocument = new TypedDocumentString(`
    query StatementsByUploader($uploaderIds: [String!]) {
  getFw2Statements(uploaderIds: $uploaderIds) {
    errors
    statements {
      nodes {
        otxId
        uploaderId
      }
    }
  }
}
    `, {"hash":"9593633c7787c6fad4d0854931ec8ba0c793d5c37784c8f30efa71e1e2821a68"}) as unknown as TypedDocumentString<StatementsByUploaderQuery, StatementsByUploaderQueryVariables>;
export const SessionsDocument = new TypedDocumentString(`
    query Sessions {
  sessions {
    id
    createdAt
    lastSeenAt
    userAgent
    current
  }
}
    `, {"hash":"64504d4003b2ee743cdeebd324bc5f8313284f6e2e8b27e77ac696de139cb835"}) as unknown as TypedDocumentString<SessionsQuery, SessionsQueryVariables>;
export const EndSessionDocument = new TypedDocumentString(`
    mutation EndSession($id: ID!) {
  endSession(id: $id)
}
    `, {"hash":"67188c8e2ce8c2ea48c1bd4d57c0a8a15dc811c26d6565548a58888de31ab5fc"}) as unknown as TypedDocumentString<EndSessionMutation, EndSessionMutationVariables>;
export const LogoutEverywhereDocument = new TypedDocumentString(`
    mutation LogoutEverywhere($keepCurrent: Boolean) {
  logoutEverywhere(keepCurrent: $keepCurrent)
}
    `, {"hash":"4f7ac0176a65594b19c34535b01add38117c8284d5a06ac85c2747f2e369dc6a"}) as unknown as TypedDocumentString<LogoutEverywhereMutation, LogoutEverywhereMutationVariables>;