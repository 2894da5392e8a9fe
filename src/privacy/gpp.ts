/**
 * GPP decoding (IAB Global Privacy Platform, "Consent String Specification"), done by the IAB
 * Tech Lab's own library `@iabgpp/cmpapi` (DESIGN section 11: never by hand), reduced to what the
 * exchange needs: the sections present, those with a US opt-out, and the TCF EU v2 section as a
 * TC string.
 *
 * US opt-out: a US section (`uspv1`, 6; `usnat`, 7; a state section, 8 and up) where the user
 * opted out of sale, sharing or targeted advertising. In the MSPA sections `SaleOptOut`,
 * `SharingOptOut` and `TargetedAdvertisingOptOut` are 0 (not applicable), 1 (opted out) or 2 (did
 * not opt out); in `uspv1` `OptOutSale` is `Y`, `N` or `-`.
 */
import { GppModel, Sections } from '@iabgpp/cmpapi';

/** GPP section id of TCF EU v2. */
export const GPP_SECTION_TCF_EU_V2 = 2;
/** GPP section id of the US Privacy string (`uspv1`). */
export const GPP_SECTION_USP_V1 = 6;

/** MSPA opt-out fields and the value meaning "opted out". */
const MSPA_OPT_OUT_FIELDS = ['SaleOptOut', 'SharingOptOut', 'TargetedAdvertisingOptOut'] as const;
const MSPA_OPTED_OUT = 1;

/** Every US section id the library knows (`uspv1`, `usnat` and the states), by name. */
const US_SECTIONS: ReadonlyMap<number, string> = new Map([...Sections.SECTION_ID_NAME_MAP.entries()].filter(([, name]) => name.startsWith('us')));

/** A decoded GPP string. */
export interface GppSummary {
  /** Section ids present in the string. */
  sectionIds: number[];
  /** US section ids present whose user opted out of sale, sharing or targeted advertising. */
  optOutSectionIds: number[];
  /** The TCF EU v2 section re-encoded as a TC string, when present. */
  tcString: string | undefined;
}

/** True when `id` is a US section (`uspv1`, `usnat` or a state). */
export function isUsSection(id: number): boolean {
  return US_SECTIONS.has(id);
}

function sectionOptsOut(model: GppModel, id: number, name: string): boolean {
  if (id === GPP_SECTION_USP_V1) {
    const value: unknown = model.getFieldValue(name, 'OptOutSale');
    return value === 'Y' || value === 'y';
  }
  return MSPA_OPT_OUT_FIELDS.some((field) => model.hasField(name, field) && model.getFieldValue(name, field) === MSPA_OPTED_OUT);
}

/**
 * Decodes a GPP string. Answers undefined when the library cannot decode the header or a
 * section the exchange reads (truncated or garbage): the caller then treats every US section
 * the request names (or, without `gpp_sid`, any) as opted out. Never throws.
 */
export function decodeGpp(gpp: string): GppSummary | undefined {
  try {
    const model = new GppModel(gpp);
    const sectionIds = (model.getSectionIds() as unknown[]).filter((id): id is number => Number.isInteger(id));
    const optOutSectionIds: number[] = [];
    let tcString: string | undefined;
    for (const id of sectionIds) {
      const name = Sections.SECTION_ID_NAME_MAP.get(id);
      if (name === undefined) continue;
      if (US_SECTIONS.has(id) && sectionOptsOut(model, id, name)) optOutSectionIds.push(id);
      if (id === GPP_SECTION_TCF_EU_V2) tcString = model.encodeSection(name);
    }
    return { sectionIds, optOutSectionIds, tcString };
  } catch {
    return undefined;
  }
}
