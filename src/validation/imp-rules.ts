/**
 * The imp-level rules of bid request validation (DESIGN section 2, "Validation"; OpenRTB 2.5
 * sections 3.2.4 to 3.2.12): imp ids, media objects, banner sizes, video mimes, native request,
 * deals, floors and every `ext` inside an imp. Only fields the exchange reads are checked; every
 * other field is left alone. Field paths are built only when an error is reported, so a valid
 * imp costs no string allocation.
 */
import type { FieldError } from '../domain/errors.js';
import {
  EXT_MESSAGE,
  fail,
  isBadExt,
  isCurrencyCode,
  isFiniteNumber,
  isNonEmptyString,
  isObject,
  isPositiveNumber,
  isStringArray,
  type JsonObject,
} from './checks.js';

const MEDIA_REQUIRED = 'needs at least one of banner, video, native, audio (OpenRTB 2.5 3.2.4)';
const CURRENCY_MESSAGE = 'must be an ISO 4217 code of three upper-case letters';

/**
 * Validates `request.imp` (already known to be a non-empty array) and appends every problem to
 * `errors`. Imp ids must be unique: a repeated id is reported on the later imp (`imp[1].id`),
 * since a bid's `impid` would otherwise be ambiguous.
 */
export function validateImps(imps: readonly unknown[], errors: FieldError[]): void {
  // One imp is by far the common case: no map needed to check uniqueness.
  const firstIndexById = imps.length > 1 ? new Map<string, number>() : undefined;
  for (let i = 0; i < imps.length; i++) {
    const imp: unknown = imps[i];
    if (!isObject(imp)) {
      fail(errors, `imp[${i}]`, 'must be an object (OpenRTB 2.5 Imp)');
      continue;
    }
    const id = imp.id;
    if (!isNonEmptyString(id)) {
      fail(errors, `imp[${i}].id`, 'must be a non-empty string');
    } else if (firstIndexById !== undefined) {
      const first = firstIndexById.get(id);
      if (first === undefined) firstIndexById.set(id, i);
      else fail(errors, `imp[${i}].id`, `duplicates imp[${first}].id; imp ids must be unique within the request`);
    }
    validateImp(imp, i, errors);
  }
}

/** Checks one imp object (its `id` is checked by the caller). */
function validateImp(imp: JsonObject, i: number, errors: FieldError[]): void {
  const { banner, video, native, audio } = imp;
  if (banner === undefined && video === undefined && native === undefined && audio === undefined) {
    fail(errors, `imp[${i}]`, MEDIA_REQUIRED);
  }
  if (banner !== undefined) {
    if (isObject(banner)) validateBanner(banner, imp.instl === 1, i, errors);
    else fail(errors, `imp[${i}].banner`, 'must be an object (OpenRTB 2.5 Banner)');
  }
  if (video !== undefined) {
    if (isObject(video)) validateVideo(video, i, errors);
    else fail(errors, `imp[${i}].video`, 'must be an object (OpenRTB 2.5 Video)');
  }
  if (native !== undefined) {
    if (isObject(native)) validateNative(native, i, errors);
    else fail(errors, `imp[${i}].native`, 'must be an object (OpenRTB 2.5 Native)');
  }
  if (audio !== undefined) {
    if (isObject(audio)) validateAudio(audio, i, errors);
    else fail(errors, `imp[${i}].audio`, 'must be an object (OpenRTB 2.5 Audio)');
  }
  if (imp.pmp !== undefined) validatePmp(imp.pmp, i, errors);
  checkFloor(imp.bidfloor, imp.bidfloorcur, i, -1, errors);
  if (isBadExt(imp.ext)) fail(errors, `imp[${i}].ext`, EXT_MESSAGE);
  const metric = imp.metric;
  if (Array.isArray(metric)) {
    for (let k = 0; k < metric.length; k++) {
      const entry: unknown = metric[k];
      if (isObject(entry) && isBadExt(entry.ext)) fail(errors, `imp[${i}].metric[${k}].ext`, EXT_MESSAGE);
    }
  }
}

/**
 * Checks `bidfloor` (CPM, a finite number >= 0) and `bidfloorcur` (three upper-case letters) of
 * imp `i`, or of its deal `j` when `j` >= 0. Paths are only built on failure.
 */
function checkFloor(bidfloor: unknown, bidfloorcur: unknown, i: number, j: number, errors: FieldError[]): void {
  if (bidfloor !== undefined && !(isFiniteNumber(bidfloor) && bidfloor >= 0)) {
    fail(errors, `${floorOwner(i, j)}.bidfloor`, 'must be a number >= 0 (CPM)');
  }
  if (bidfloorcur !== undefined && !isCurrencyCode(bidfloorcur)) fail(errors, `${floorOwner(i, j)}.bidfloorcur`, CURRENCY_MESSAGE);
}

/** Path of the object that carries a floor: `imp[i]` or `imp[i].pmp.deals[j]`. */
function floorOwner(i: number, j: number): string {
  return j < 0 ? `imp[${i}]` : `imp[${i}].pmp.deals[${j}]`;
}

/**
 * What is wrong with one size field (`w`, `h`, `wratio`, `hratio`, `wmin`), or undefined when it
 * is fine: absent, or a finite number that is not negative (zero is allowed here; whether the
 * object gives a usable size is decided by the caller).
 */
function dimensionProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isFiniteNumber(value)) return 'must be a number (device-independent pixels)';
  return value < 0 ? 'must not be negative' : undefined;
}

/**
 * Banner size rule (DESIGN section 2): positive `w` and `h`, or a non-empty `format[]` whose
 * entries each give a size; an interstitial (`instl=1`) may give none (no w/h/format, or
 * `w`=`h`=0). When a w/h/format error was already reported, the generic "no size" error is
 * skipped so the client sees the precise cause.
 */
function validateBanner(banner: JsonObject, interstitial: boolean, i: number, errors: FieldError[]): void {
  const { w, h, format } = banner;
  let sizeReported = false;
  let problem = dimensionProblem(w);
  if (problem !== undefined) {
    fail(errors, `imp[${i}].banner.w`, problem);
    sizeReported = true;
  }
  problem = dimensionProblem(h);
  if (problem !== undefined) {
    fail(errors, `imp[${i}].banner.h`, problem);
    sizeReported = true;
  }
  let hasFormat = false;
  if (format !== undefined) {
    if (!Array.isArray(format)) {
      fail(errors, `imp[${i}].banner.format`, 'must be an array of Format objects');
      sizeReported = true;
    } else if (format.length === 0) {
      fail(errors, `imp[${i}].banner.format`, 'must not be empty; omit it or list at least one size');
      sizeReported = true;
    } else {
      hasFormat = true;
      for (let j = 0; j < format.length; j++) validateFormat(format[j], i, j, errors);
    }
  }
  if (!hasFormat && !sizeReported && !(isPositiveNumber(w) && isPositiveNumber(h))) {
    const noSize = (w === undefined && h === undefined) || (w === 0 && h === 0);
    if (!(interstitial && noSize)) {
      fail(errors, `imp[${i}].banner`, 'needs positive w and h, or a non-empty format (only an interstitial, instl=1, may omit its size)');
    }
  }
  if (isBadExt(banner.ext)) fail(errors, `imp[${i}].banner.ext`, EXT_MESSAGE);
}

/** Reports a bad size field of `imp[i].banner.format[j]`; returns 1 when it did, else 0. */
function reportDimension(value: unknown, key: string, i: number, j: number, errors: FieldError[]): number {
  const problem = dimensionProblem(value);
  if (problem === undefined) return 0;
  fail(errors, `imp[${i}].banner.format[${j}].${key}`, problem);
  return 1;
}

/**
 * One `format[]` entry (OpenRTB 2.5 3.2.10): positive `w` and `h`, or the flexible form with
 * positive `wratio`, `hratio` and `wmin`. A wrong-typed or negative field is reported on itself;
 * an entry that gives no usable size is reported on the entry.
 */
function validateFormat(entry: unknown, i: number, j: number, errors: FieldError[]): void {
  if (!isObject(entry)) {
    fail(errors, `imp[${i}].banner.format[${j}]`, 'must be an object (OpenRTB 2.5 Format)');
    return;
  }
  const { w, h, wratio, hratio, wmin } = entry;
  // Unrolled on purpose: a loop over key names would make these reads megamorphic.
  const reported =
    reportDimension(w, 'w', i, j, errors) |
    reportDimension(h, 'h', i, j, errors) |
    reportDimension(wratio, 'wratio', i, j, errors) |
    reportDimension(hratio, 'hratio', i, j, errors) |
    reportDimension(wmin, 'wmin', i, j, errors);
  const sized = (isPositiveNumber(w) && isPositiveNumber(h)) || (isPositiveNumber(wratio) && isPositiveNumber(hratio) && isPositiveNumber(wmin));
  if (!sized && reported === 0) {
    fail(errors, `imp[${i}].banner.format[${j}]`, 'needs positive w and h, or positive wratio, hratio and wmin');
  }
  if (isBadExt(entry.ext)) fail(errors, `imp[${i}].banner.format[${j}].ext`, EXT_MESSAGE);
}

/** Video (OpenRTB 2.5 3.2.7): `mimes` is required, a non-empty array of strings. */
function validateVideo(video: JsonObject, i: number, errors: FieldError[]): void {
  const mimes = video.mimes;
  if (!Array.isArray(mimes) || mimes.length === 0) {
    fail(errors, `imp[${i}].video.mimes`, 'must be a non-empty array of MIME types (OpenRTB 2.5 3.2.7)');
  } else if (!isStringArray(mimes)) {
    fail(errors, `imp[${i}].video.mimes`, 'must contain only strings');
  }
  if (isBadExt(video.ext)) fail(errors, `imp[${i}].video.ext`, EXT_MESSAGE);
  if (video.companionad !== undefined) checkCompanions(video.companionad, i, 'video', errors);
}

/** Audio (OpenRTB 2.5 3.2.8): only the `ext` shapes are checked; audio is not auctioned yet. */
function validateAudio(audio: JsonObject, i: number, errors: FieldError[]): void {
  if (isBadExt(audio.ext)) fail(errors, `imp[${i}].audio.ext`, EXT_MESSAGE);
  if (audio.companionad !== undefined) checkCompanions(audio.companionad, i, 'audio', errors);
}

/**
 * Native (OpenRTB 2.5 3.2.9): `request` is required. Its content (the Native Ads request, a JSON
 * string in 2.5) is not deep-validated: the IAB's own example carries placeholders.
 */
function validateNative(native: JsonObject, i: number, errors: FieldError[]): void {
  if (native.request === undefined || native.request === null) {
    fail(errors, `imp[${i}].native.request`, 'is required (OpenRTB 2.5 3.2.9)');
  }
  if (isBadExt(native.ext)) fail(errors, `imp[${i}].native.ext`, EXT_MESSAGE);
}

/** Companion banners (`companionad`) of imp `i`'s video or audio: only their `ext` and their formats' `ext` are checked. */
function checkCompanions(companions: unknown, i: number, media: 'video' | 'audio', errors: FieldError[]): void {
  if (!Array.isArray(companions)) return;
  for (let k = 0; k < companions.length; k++) {
    const companion: unknown = companions[k];
    if (!isObject(companion)) continue;
    if (isBadExt(companion.ext)) fail(errors, `imp[${i}].${media}.companionad[${k}].ext`, EXT_MESSAGE);
    const format = companion.format;
    if (!Array.isArray(format)) continue;
    for (let j = 0; j < format.length; j++) {
      const entry: unknown = format[j];
      if (isObject(entry) && isBadExt(entry.ext)) fail(errors, `imp[${i}].${media}.companionad[${k}].format[${j}].ext`, EXT_MESSAGE);
    }
  }
}

/**
 * Pmp (OpenRTB 2.5 3.2.11) and its deals (3.2.12): the auction reads `deals[]`, so `pmp` must be
 * an object and `deals` an array of objects, each with a non-empty string `id` and a valid floor.
 */
function validatePmp(pmp: unknown, i: number, errors: FieldError[]): void {
  if (!isObject(pmp)) {
    fail(errors, `imp[${i}].pmp`, 'must be an object (OpenRTB 2.5 Pmp)');
    return;
  }
  if (isBadExt(pmp.ext)) fail(errors, `imp[${i}].pmp.ext`, EXT_MESSAGE);
  const deals = pmp.deals;
  if (deals === undefined) return;
  if (!Array.isArray(deals)) {
    fail(errors, `imp[${i}].pmp.deals`, 'must be an array of Deal objects');
    return;
  }
  for (let j = 0; j < deals.length; j++) {
    const deal: unknown = deals[j];
    if (!isObject(deal)) {
      fail(errors, `imp[${i}].pmp.deals[${j}]`, 'must be an object (OpenRTB 2.5 Deal)');
      continue;
    }
    if (!isNonEmptyString(deal.id)) fail(errors, `imp[${i}].pmp.deals[${j}].id`, 'must be a non-empty string (OpenRTB 2.5 3.2.12)');
    if (deal.bidfloor !== undefined || deal.bidfloorcur !== undefined) {
      checkFloor(deal.bidfloor, deal.bidfloorcur, i, j, errors);
    }
    if (isBadExt(deal.ext)) fail(errors, `imp[${i}].pmp.deals[${j}].ext`, EXT_MESSAGE);
  }
}
