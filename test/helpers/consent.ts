/**
 * Real consent strings for tests, built with the IAB Tech Lab's own libraries (never hand-made
 * bits): TC strings from a `TCModel` encoded by `@iabtechlabtcf/core` against a small Global
 * Vendor List, and GPP strings from a `GppModel` of `@iabgpp/cmpapi`.
 */
import { GVL, PurposeRestriction, RestrictionType, TCModel, TCString } from '@iabtechlabtcf/core';
import { GppModel } from '@iabgpp/cmpapi';

/** Vendor ids of the test GVL. Every vendor declares purposes 1-4 and 7 for consent, 2 and 7 for legitimate interest. */
export const TEST_VENDORS = [11, 22, 33, 44] as const;

const declaration = (id: number) => ({
  id,
  name: `Vendor ${id}`,
  purposes: [1, 2, 3, 4, 7],
  legIntPurposes: [2, 7],
  flexiblePurposes: [2, 7],
  specialPurposes: [1],
  features: [],
  specialFeatures: [1],
  policyUrl: `https://vendor${id}.example/privacy`,
  usesCookies: true,
  cookieMaxAgeSeconds: 86400,
  usesNonCookieAccess: false,
  deviceStorageDisclosureUrl: null,
});

const purpose = (id: number) => ({ id, name: `Purpose ${id}`, description: '', illustrations: [] });

/** A tiny vendor list in the GVL v3 JSON shape (IAB TCF v2.2), enough for the encoder. */
function testVendorList(): ConstructorParameters<typeof GVL>[0] {
  return {
    gvlSpecificationVersion: 3,
    vendorListVersion: 100,
    tcfPolicyVersion: 5,
    lastUpdated: '2026-01-01T00:00:00Z',
    purposes: Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((id) => [id, purpose(id)])),
    specialPurposes: { 1: purpose(1), 2: purpose(2) },
    features: { 1: purpose(1), 2: purpose(2), 3: purpose(3) },
    specialFeatures: { 1: purpose(1), 2: purpose(2) },
    stacks: {},
    dataCategories: {},
    vendors: Object.fromEntries(TEST_VENDORS.map((id) => [id, declaration(id)])),
  } as unknown as ConstructorParameters<typeof GVL>[0];
}

/** What a TC string grants. */
export interface TcSpec {
  purposeConsents?: number[];
  purposeLegitimateInterests?: number[];
  vendorConsents?: number[];
  vendorLegitimateInterests?: number[];
  specialFeatureOptins?: number[];
  /** Publisher restrictions: `{vendorId, purposeId, type}` with type 0 not allowed, 1 require consent, 2 require legitimate interest. */
  restrictions?: Array<{ vendorId: number; purposeId: number; type: 0 | 1 | 2 }>;
}

/** Encodes a TCF v2 TC string granting `spec` (CMP 10, service-specific, publisher country DE). */
export function tcString(spec: TcSpec): string {
  const model = new TCModel(new GVL(testVendorList()));
  model.cmpId = 10;
  model.cmpVersion = 1;
  model.isServiceSpecific = true;
  model.publisherCountryCode = 'DE';
  model.purposeConsents.set(spec.purposeConsents ?? []);
  model.purposeLegitimateInterests.set(spec.purposeLegitimateInterests ?? []);
  model.vendorConsents.set(spec.vendorConsents ?? []);
  model.vendorLegitimateInterests.set(spec.vendorLegitimateInterests ?? []);
  model.specialFeatureOptins.set(spec.specialFeatureOptins ?? []);
  for (const r of spec.restrictions ?? []) model.publisherRestrictions.add(r.vendorId, new PurposeRestriction(r.purposeId, r.type as RestrictionType));
  return TCString.encode(model);
}

/** A GPP string with a US national (`usnat`, section 7) section; `optOut` sets the sale opt-out (1 = opted out, 2 = did not). */
export function gppUsNat(fields: { saleOptOut?: 0 | 1 | 2; sharingOptOut?: 0 | 1 | 2; targetedAdvertisingOptOut?: 0 | 1 | 2 }): string {
  const model = new GppModel();
  model.setFieldValue('usnat', 'SaleOptOutNotice', 1);
  model.setFieldValue('usnat', 'SharingOptOutNotice', 1);
  model.setFieldValue('usnat', 'TargetedAdvertisingOptOutNotice', 1);
  model.setFieldValue('usnat', 'SaleOptOut', fields.saleOptOut ?? 2);
  model.setFieldValue('usnat', 'SharingOptOut', fields.sharingOptOut ?? 2);
  model.setFieldValue('usnat', 'TargetedAdvertisingOptOut', fields.targetedAdvertisingOptOut ?? 2);
  return model.encode();
}

/** A GPP string with a US state section (`usca`, section 8) whose sale opt-out is `saleOptOut`. */
export function gppUsCa(saleOptOut: 1 | 2): string {
  const model = new GppModel();
  model.setFieldValue('usca', 'SaleOptOutNotice', 1);
  model.setFieldValue('usca', 'SaleOptOut', saleOptOut);
  return model.encode();
}

/** A GPP string with the US Privacy section (`uspv1`, section 6) whose sale opt-out is `optOutSale`. */
export function gppUspV1(optOutSale: 'Y' | 'N'): string {
  const model = new GppModel();
  model.setFieldValue('uspv1', 'Notice', 'Y');
  model.setFieldValue('uspv1', 'OptOutSale', optOutSale);
  model.setFieldValue('uspv1', 'LspaCovered', 'N');
  return model.encode();
}

/** A GPP string carrying `tc` (a TC string) as its TCF EU v2 section (section 2). */
export function gppWithTcf(tc: string): string {
  const model = new GppModel();
  model.decodeSection('tcfeuv2', tc);
  return model.encode();
}
