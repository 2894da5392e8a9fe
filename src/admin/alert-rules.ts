/**
 * The alert-rule service behind `/v1/alert-rules` (DESIGN section 7): validation, id minting and
 * storage of rules; their evaluation is `reporting/alerts.ts`. No HTTP in here.
 *
 * Input is the admin API's JSON: `metric` (`revenue` | `fill_rate`), `comparator` (`above` |
 * `below`), `threshold` (decimal: a USD amount >= 0 with at most 6 decimals for revenue, a rate in
 * [0, 1] for fill_rate), `window_minutes` (integer 1..{@link MAX_WINDOW_MINUTES}), `publisher_id`
 * (an existing publisher, or null / absent for the whole exchange). Revenue thresholds are stored
 * as USD micros. Unknown fields are ignored. Rules are immutable: change one by delete + create
 * (a new rule starts `idle`).
 */
import type { Clock } from '../domain/clock.js';
import { AdxError } from '../domain/errors.js';
import type { IdGenerator } from '../domain/ids.js';
import { fromMicros, toMicros } from '../domain/money.js';
import type { AlertComparator, AlertMetric, AlertRuleRecord, AlertState, Store } from '../storage/ports.js';
import { FieldErrors, requireObject } from './field-checks.js';

/** Longest window a rule may use: 7 days, in minutes. */
export const MAX_WINDOW_MINUTES = 7 * 24 * 60;

/** Fields a client sets on a rule (snake_case, as in the admin API's JSON). */
export interface AlertRuleInput {
  metric: AlertMetric;
  comparator: AlertComparator;
  /** USD amount (revenue) or rate in [0, 1] (fill_rate), decimal. */
  threshold: number;
  window_minutes: number;
  publisher_id?: string | null;
}

/** A rule with its current state. */
export interface AlertRuleView {
  rule: AlertRuleRecord;
  state: AlertState;
  /** The current episode's alert id, null while idle. */
  alertId: string | null;
}

/** What the service needs. */
export interface AlertRuleServiceDeps {
  store: Pick<Store, 'reporting' | 'publishers'>;
  clock: Clock;
  /** Mints rule ids (`rule_...`). */
  ids: IdGenerator;
}

/** Alert-rule administration. Every method rejects with `AdxError`; storage errors pass through. */
export interface AlertRuleService {
  /**
   * Creates a rule (state `idle`).
   * @throws AdxError `invalid_request` naming each invalid field.
   */
  create(input: unknown): Promise<AlertRuleView>;
  /** Every rule with its state, oldest first. */
  list(): Promise<AlertRuleView[]>;
  /** @throws AdxError `not_found` for an unknown id. */
  get(id: string): Promise<AlertRuleView>;
  /** Deletes the rule and its state (no `resolved` is sent). @throws AdxError `not_found` for an unknown id. */
  delete(id: string): Promise<void>;
}

const METRICS: readonly AlertMetric[] = ['revenue', 'fill_rate'];
const COMPARATORS: readonly AlertComparator[] = ['above', 'below'];

/** The threshold as the API shows it: decimal USD for revenue, the rate for fill_rate. */
export function thresholdForJson(rule: Pick<AlertRuleRecord, 'metric' | 'threshold'>): number {
  return rule.metric === 'revenue' ? fromMicros(rule.threshold) : rule.threshold;
}

function notFound(id: string): AdxError {
  return new AdxError('not_found', `no alert rule with id ${JSON.stringify(id)}`);
}

/** Builds the service. */
export function createAlertRuleService(deps: AlertRuleServiceDeps): AlertRuleService {
  const { store, clock, ids } = deps;

  const check = async (input: unknown): Promise<Omit<AlertRuleRecord, 'id' | 'createdAtMs'>> => {
    const body = requireObject(input, 'alert rule');
    const errors = new FieldErrors();
    const metric = body.metric as AlertMetric;
    if (!METRICS.includes(metric)) errors.add('metric', 'must be one of revenue, fill_rate');
    const comparator = body.comparator as AlertComparator;
    if (!COMPARATORS.includes(comparator)) errors.add('comparator', 'must be one of above, below');
    let threshold = Number.NaN;
    if (typeof body.threshold !== 'number' || !Number.isFinite(body.threshold) || body.threshold < 0) {
      errors.add('threshold', 'must be a number >= 0');
    } else if (metric === 'fill_rate') {
      if (body.threshold > 1) errors.add('threshold', 'must be a rate between 0 and 1 for fill_rate');
      else threshold = body.threshold;
    } else if (metric === 'revenue') {
      threshold = toMicros(body.threshold);
      if (!Number.isSafeInteger(threshold)) errors.add('threshold', 'is too large');
    }
    const windowMinutes = body.window_minutes;
    if (typeof windowMinutes !== 'number' || !Number.isSafeInteger(windowMinutes) || windowMinutes < 1 || windowMinutes > MAX_WINDOW_MINUTES) {
      errors.add('window_minutes', `must be an integer from 1 to ${MAX_WINDOW_MINUTES}`);
    }
    let publisherId: string | null = null;
    if (body.publisher_id !== undefined && body.publisher_id !== null) {
      if (typeof body.publisher_id !== 'string' || body.publisher_id === '') errors.add('publisher_id', 'must be a publisher id or null');
      else if (!(await store.publishers.get(body.publisher_id))) errors.add('publisher_id', 'names no publisher');
      else publisherId = body.publisher_id;
    }
    errors.throwIfAny('alert rule');
    return { metric, comparator, threshold, windowMinutes: windowMinutes as number, publisherId };
  };

  const stateOf = async (): Promise<Map<string, { state: AlertState; alertId: string | null }>> =>
    new Map((await store.reporting.listAlertStates()).map((s) => [s.ruleId, { state: s.state, alertId: s.alertId }]));

  return {
    async create(input) {
      const fields = await check(input);
      const rule: AlertRuleRecord = { id: ids.next('rule'), ...fields, createdAtMs: clock.now() };
      await store.reporting.createAlertRule(rule);
      return { rule, state: 'idle', alertId: null };
    },

    async list() {
      const [rules, states] = [await store.reporting.listAlertRules(), await stateOf()];
      return rules.map((rule) => ({ rule, state: states.get(rule.id)?.state ?? 'idle', alertId: states.get(rule.id)?.alertId ?? null }));
    },

    async get(id) {
      const rule = await store.reporting.getAlertRule(id);
      if (!rule) throw notFound(id);
      const state = (await stateOf()).get(id);
      return { rule, state: state?.state ?? 'idle', alertId: state?.alertId ?? null };
    },

    async delete(id) {
      if (!(await store.reporting.deleteAlertRule(id))) throw notFound(id);
    },
  };
}
