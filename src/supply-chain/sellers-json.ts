/**
 * The exchange's sellers.json (IAB Tech Lab sellers.json 1.0; DESIGN section 11): one entry per
 * publisher, `seller_id` = the publisher id, which is the `sid` of the schain node the exchange
 * appends for that publisher's requests (`demand/schain.ts`), so a buyer can look the seller up.
 * Pure.
 */
import type { PublisherRecord, SellerType } from '../storage/ports.js';

/** One `sellers[]` entry (sellers.json 1.0 "Seller" object). */
export interface SellersJsonSeller {
  seller_id: string;
  seller_type: SellerType;
  is_confidential: 0 | 1;
  /** Absent for a confidential seller. */
  name?: string;
  /** The publisher's main site; absent for a confidential seller or when the publisher has none. */
  domain?: string;
}

/** The sellers.json document. */
export interface SellersJson {
  version: '1.0';
  /** Absent when config `exchange.contactEmail` is empty. */
  contact_email?: string;
  /** Absent when config `exchange.contactAddress` is empty. */
  contact_address?: string;
  sellers: SellersJsonSeller[];
}

/**
 * The sellers.json of `publishers` (in the given order). A confidential seller (sellers.json 1.0:
 * "is_confidential: 1") has neither `name` nor `domain`; `is_confidential` is written as the
 * spec's integer 0/1. `contact` strings that are empty are left out.
 */
export function buildSellersJson(publishers: readonly PublisherRecord[], contact: { email: string; address: string }): SellersJson {
  const doc: SellersJson = { version: '1.0', sellers: [] };
  if (contact.email !== '') doc.contact_email = contact.email;
  if (contact.address !== '') doc.contact_address = contact.address;
  for (const p of publishers) {
    const seller: SellersJsonSeller = { seller_id: p.id, seller_type: p.sellerType, is_confidential: p.isConfidential ? 1 : 0 };
    if (!p.isConfidential) {
      seller.name = p.name;
      if (p.domain) seller.domain = p.domain;
    }
    doc.sellers.push(seller);
  }
  return doc;
}
