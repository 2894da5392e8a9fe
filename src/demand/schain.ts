/**
 * The exchange's node in the supply chain (IAB SupplyChain object, carried in OpenRTB 2.5 as
 * `source.ext.schain`; DESIGN section 5).
 */
import type { Source, SupplyChain, SupplyChainNode } from '../domain/openrtb.js';

/**
 * A copy of `source` whose `ext.schain` is the upstream chain (if any) with `node` appended:
 * `nodes` copied from the upstream `source.ext.schain.nodes`, `complete` copied from upstream
 * (else 1: the exchange is the chain's origin), `ver` '1.0'. Other fields of `source`,
 * `source.ext` and the upstream schain are kept. Never mutates the input.
 */
export function appendSchainNode(source: Source | undefined, node: SupplyChainNode): Source {
  const upstream = source?.ext?.schain;
  const upstreamNodes = upstream && Array.isArray(upstream.nodes) ? upstream.nodes : [];
  const schain: SupplyChain = {
    ...upstream,
    complete: typeof upstream?.complete === 'number' ? upstream.complete : 1,
    ver: '1.0',
    nodes: [...upstreamNodes, node],
  };
  return { ...source, ext: { ...source?.ext, schain } };
}
