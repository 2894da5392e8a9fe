/**
 * Reporting queries (`ReportingStore`, DESIGN sections 6-7), portable SQL over
 * `Kysely<Database>`: alert rules and states, revenue milestones reached, daily reports delivered.
 *
 * Every recorded state change writes its outbox messages in the same transaction and only when
 * the change took effect: alert transitions are a compare-and-set on the stored state, milestones
 * and deliveries an `INSERT ... ON CONFLICT DO NOTHING` on their primary key. So two nodes (or a
 * retry after a crash) may evaluate the same change, but only one writes its events.
 */
import type { Kysely, Selectable } from 'kysely';
import type {
  AlertRuleRecord,
  AlertState,
  AlertStateRecord,
  MilestoneRecord,
  OutboxMessage,
  ReportDeliveryRecord,
  ReportingStore,
} from '../ports.js';
import { fromDbInt, type AlertRulesTable, type AlertStatesTable, type Database } from '../schema.js';
import { insertOutboxMessages } from './outbox.js';

function toRule(row: Selectable<AlertRulesTable>): AlertRuleRecord {
  return {
    id: row.id,
    metric: row.metric,
    comparator: row.comparator,
    threshold: Number(row.threshold),
    windowMinutes: fromDbInt(row.window_minutes),
    publisherId: row.publisher_id,
    createdAtMs: fromDbInt(row.created_at_ms),
  };
}

function toState(row: Selectable<AlertStatesTable>): AlertStateRecord {
  return { ruleId: row.rule_id, state: row.state, alertId: row.alert_id, changedAtMs: fromDbInt(row.changed_at_ms) };
}

/** `ReportingStore` over `db` (see the module comment for the once-only rules). */
export function createReportingQueries(db: Kysely<Database>): ReportingStore {
  return {
    async createAlertRule(rule: AlertRuleRecord): Promise<void> {
      await db
        .insertInto('alert_rules')
        .values({
          id: rule.id,
          metric: rule.metric,
          comparator: rule.comparator,
          threshold: rule.threshold,
          window_minutes: rule.windowMinutes,
          publisher_id: rule.publisherId,
          created_at_ms: rule.createdAtMs,
        })
        .execute();
    },

    async getAlertRule(id: string): Promise<AlertRuleRecord | undefined> {
      const row = await db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toRule(row) : undefined;
    },

    async listAlertRules(): Promise<AlertRuleRecord[]> {
      const rows = await db.selectFrom('alert_rules').selectAll().orderBy('created_at_ms').orderBy('id').execute();
      return rows.map(toRule);
    },

    async deleteAlertRule(id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('alert_states').where('rule_id', '=', id).execute();
        const result = await trx.deleteFrom('alert_rules').where('id', '=', id).executeTakeFirst();
        return (result.numDeletedRows ?? 0n) > 0n;
      });
    },

    async listAlertStates(): Promise<AlertStateRecord[]> {
      const rows = await db.selectFrom('alert_states').selectAll().orderBy('rule_id').execute();
      return rows.map(toState);
    },

    async transitionAlert(expected: AlertState, next: AlertStateRecord, messages: OutboxMessage[]): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const rule = await trx.selectFrom('alert_rules').select('id').where('id', '=', next.ruleId).executeTakeFirst();
        if (!rule) return false;
        const current = await trx.selectFrom('alert_states').select('state').where('rule_id', '=', next.ruleId).executeTakeFirst();
        const values = { state: next.state, alert_id: next.alertId, changed_at_ms: next.changedAtMs };
        if (current === undefined) {
          if (expected !== 'idle') return false;
          // A concurrent first transition on another node hits the primary key: nothing is written.
          const inserted = await trx
            .insertInto('alert_states')
            .values({ rule_id: next.ruleId, ...values })
            .onConflict((oc) => oc.column('rule_id').doNothing())
            .executeTakeFirst();
          if ((inserted.numInsertedOrUpdatedRows ?? 0n) === 0n) return false;
        } else {
          const updated = await trx
            .updateTable('alert_states')
            .set(values)
            .where('rule_id', '=', next.ruleId)
            .where('state', '=', expected)
            .executeTakeFirst();
          if ((updated.numUpdatedRows ?? 0n) === 0n) return false;
        }
        await insertOutboxMessages(trx, messages);
        return true;
      });
    },

    async listMilestones(publisherId?: string): Promise<MilestoneRecord[]> {
      let query = db.selectFrom('revenue_milestones').selectAll();
      if (publisherId !== undefined) query = query.where('publisher_id', '=', publisherId);
      const rows = await query.orderBy('publisher_id').orderBy('milestone_micros').execute();
      return rows.map((row) => ({
        publisherId: row.publisher_id,
        milestoneMicros: fromDbInt(row.milestone_micros),
        reachedAtMs: fromDbInt(row.reached_at_ms),
      }));
    },

    async listReportDeliveries(date: string): Promise<string[]> {
      const rows = await db.selectFrom('report_deliveries').select('publisher_id').where('date', '=', date).orderBy('publisher_id').execute();
      return rows.map((row) => row.publisher_id);
    },

    async recordReportDelivery(delivery: ReportDeliveryRecord, messages: OutboxMessage[]): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .insertInto('report_deliveries')
          .values({ date: delivery.date, publisher_id: delivery.publisherId, delivered_at_ms: delivery.deliveredAtMs })
          .onConflict((oc) => oc.columns(['date', 'publisher_id']).doNothing())
          .executeTakeFirst();
        if ((result.numInsertedOrUpdatedRows ?? 0n) === 0n) return false;
        await insertOutboxMessages(trx, messages);
        return true;
      });
    },
  };
}
