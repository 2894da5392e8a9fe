/**
 * Banner sizes an imp accepts, and whether a bid's creative fits (DESIGN section 4; OpenRTB 2.5
 * sections 3.2.6 Banner, 3.2.10 Format, 4.2.3 Bid `w`/`h`). Sizes are device-independent pixels.
 */
import type { Bid, Imp } from '../domain/openrtb.js';

/** An absolute banner size in px. */
export interface BannerSize {
  w: number;
  h: number;
}

/**
 * A flexible size (OpenRTB 2.5 section 3.2.10): any `w` x `h` whose ratio is `wratio`:`hratio`
 * with `w >= wmin` (px; an absent `wmin` is 0).
 */
export interface FlexSize {
  wratio: number;
  hratio: number;
  wmin: number;
}

/** The sizes one imp accepts, computed once per imp auction. */
export interface ImpSizes {
  /** Distinct absolute sizes: `banner.w` x `banner.h` plus each `format[]` entry's `w` x `h`. */
  fixed: BannerSize[];
  /** Flexible `format[]` entries (`wratio`/`hratio`/`wmin`). */
  flex: FlexSize[];
  /** True for an interstitial imp (`instl=1`) with no size at all: any creative size is accepted. */
  anySize: boolean;
}

/**
 * The size a bid is accepted at: the creative's `w` x `h` (or the imp's only size for a bid
 * without `w`/`h`), or `'unknown'` for an unsized bid on an interstitial imp without sizes.
 */
export type SizeMatch = BannerSize | 'unknown';

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * The sizes `imp.banner` accepts. Entries with a zero, negative or non-numeric `w`/`h` are not
 * sizes (an interstitial may say `w`=`h`=0 for "full screen"). Duplicates (a banner `w`/`h`
 * repeated in `format[0]`, as Prebid sends it) are kept once so "exactly one size" means one
 * distinct size. An imp without a banner has no sizes.
 */
export function impSizesOf(imp: Imp): ImpSizes {
  const fixed: BannerSize[] = [];
  const flex: FlexSize[] = [];
  const banner = imp.banner;
  const addFixed = (w: unknown, h: unknown): void => {
    if (!isPositive(w) || !isPositive(h)) return;
    if (!fixed.some((s) => s.w === w && s.h === h)) fixed.push({ w, h });
  };
  if (banner) {
    addFixed(banner.w, banner.h);
    if (Array.isArray(banner.format)) {
      for (const format of banner.format) {
        if (format === null || typeof format !== 'object') continue;
        if (isPositive(format.w) && isPositive(format.h)) {
          addFixed(format.w, format.h);
        } else if (isPositive(format.wratio) && isPositive(format.hratio)) {
          flex.push({ wratio: format.wratio, hratio: format.hratio, wmin: isPositive(format.wmin) ? format.wmin : 0 });
        }
      }
    }
  }
  return { fixed, flex, anySize: imp.instl === 1 && fixed.length === 0 && flex.length === 0 };
}

/**
 * Whether `bid` fits the imp's sizes, and at what size. Returns null when it does not (loss
 * reason 203, creative filtered: size not allowed, OpenRTB 2.5 section 5.25).
 *
 * - A bid without `w` and `h` is accepted only when the imp has exactly one size (one distinct
 *   absolute size and no flexible one), and then takes that size; on an interstitial imp without
 *   sizes it is accepted with size `'unknown'`.
 * - A bid with `w` and `h` must equal one absolute size, or have a flexible entry's ratio
 *   (`w * hratio === h * wratio`) with `w >= wmin`; an interstitial imp without sizes takes it.
 * - A bid with only one of `w`/`h`, or a non-positive one, fits no size (except `anySize`).
 */
export function matchBidSize(bid: Bid, sizes: ImpSizes): SizeMatch | null {
  const { w, h } = bid;
  if (w === undefined && h === undefined) {
    if (sizes.anySize) return 'unknown';
    const only = sizes.fixed[0];
    return only !== undefined && sizes.fixed.length === 1 && sizes.flex.length === 0 ? only : null;
  }
  if (sizes.anySize) return isPositive(w) && isPositive(h) ? { w, h } : 'unknown';
  if (!isPositive(w) || !isPositive(h)) return null;
  for (const size of sizes.fixed) {
    if (size.w === w && size.h === h) return size;
  }
  for (const size of sizes.flex) {
    if (w >= size.wmin && w * size.hratio === h * size.wratio) return { w, h };
  }
  return null;
}
