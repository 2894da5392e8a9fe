/**
 * The exchange's node in the supply chain (IAB SupplyChain object, carried in OpenRTB 2.5 as
 * `source.ext.schain`; DESIGN section 5).
 */
import type { Source, SupplyChain, SupplyChainNode } from '../domain/openrtb.js';

/**
 * A copy of `source` whose `ext.schain` is the upstream chain (if any) with `node` appended. The
 * upstream chain is `source.schain` (OpenRTB 2.6) when it is an object, else `source.ext.schain`
 * (2.5); the result holds it in `ext.schain` only (`openrtb-version.ts` moves it for 2.6
 * partners). `nodes` copied from the upstream chain's `nodes`, `complete` copied from upstream
 * (else 1: the exchange is the chain's origin), `ver` '1.0'. Other fields of `source`,
 * `source.ext` and the upstream schain are kept. Never mutates the input.
 */
export function appendSchainNode(source: Source | undefined, node: SupplyChainNode): Source {
  const top: unknown = source?.schain;
  const upstream = typeof top === 'object' && top !== null && !Array.isArray(top) ? (top as SupplyChain) : source?.ext?.schain;
  const upstreamNodes = upstream && Array.isArray(upstream.nodes) ? upstream.nodes : [];
  const schain: SupplyChain = {
    ...upstream,
    complete: typeof upstream?.complete === 'number' ? upstream.complete : 1,
    ver: '1.0',
    nodes: [...upstreamNodes, node],
  };
  const { schain: _top, ...rest } = source ?? {};
  return { ...rest, ext: { ...source?.ext, schain } };
}
