// The outcome of the soak benchmark, read from the database itself: what became of every acknowledged upload.
import pg from 'pg';
import { sleep } from '../test/system/service-process.ts';
import type { Fault } from './soak-faults.ts';
import type { Upload } from './soak-uploads.ts';

/** A model row as far as the soak looks at it. */
interface ModelRow {
  id: string;
  name: string;
  status: string;
  error: string | null;
  upload_id: string | null;
  idempotency_key: string | null;
}

/** What became of the uploads. */
export interface SoakOutcome {
  uploads: number;
  acknowledged: number;
  /** Uploads that never got an answer with a model (a plain multipart failing once, or retries running out). */
  unacknowledged: number;
  completed: number;
  failed: number;
  /** Acknowledged but still pending or processing after the wait. */
  stuck: number;
  /** Uploads with more than one model (by marker, upload_id or idempotency key). */
  duplicated: number;
  /** Acknowledged but absent from the database. */
  lost: number;
  /** Models made by an unacknowledged upload (the answer was lost, the model was not). */
  unanswered: number;
  /** One line per upload or model the counts above single out. */
  details: string[];
}

const UNSETTLED = ['pending', 'processing'];

async function readModels(databaseUrl: string): Promise<ModelRow[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<ModelRow>(
      'select id, name, status, error, upload_id, idempotency_key from models',
    );
    return result.rows;
  } finally {
    await client.end();
  }
}

/** Polls the database until no acknowledged model is pending or processing, or `timeoutMs` passed; the models then. */
export async function waitForSettled(
  databaseUrl: string,
  uploads: Upload[],
  timeoutMs: number,
): Promise<ModelRow[]> {
  const acknowledged = new Set(uploads.flatMap((upload) => (upload.modelId ? [upload.modelId] : [])));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const models = await readModels(databaseUrl);
    const unsettled = models.filter(
      (model) => acknowledged.has(model.id) && UNSETTLED.includes(model.status),
    );
    if (unsettled.length === 0 || Date.now() > deadline) return models;
    await sleep(2000);
  }
}

/** Counts the outcome of `uploads` against the models of the database. */
export function judge(uploads: Upload[], models: ModelRow[]): SoakOutcome {
  const byId = new Map(models.map((model) => [model.id, model]));
  const byMarker = new Map<string, ModelRow[]>();
  for (const model of models) {
    const marker = /^(soak-\d+-\d+) /.exec(model.name)?.[1] ?? `unmarked ${model.id}`;
    byMarker.set(marker, [...(byMarker.get(marker) ?? []), model]);
  }
  const sharing = (column: 'upload_id' | 'idempotency_key') => {
    const seen = new Map<string, number>();
    for (const model of models) {
      const value = model[column];
      if (value !== null) seen.set(value, (seen.get(value) ?? 0) + 1);
    }
    return [...seen.values()].filter((count) => count > 1).length;
  };
  const outcome: SoakOutcome = {
    uploads: uploads.length,
    acknowledged: 0,
    unacknowledged: 0,
    completed: 0,
    failed: 0,
    stuck: 0,
    duplicated: 0,
    lost: 0,
    unanswered: 0,
    details: [],
  };
  for (const upload of uploads) {
    const made = byMarker.get(upload.marker) ?? [];
    const label = `${upload.marker} (${upload.kind}, ${upload.file.split('/').slice(-2).join('/')})`;
    if (made.length > 1) {
      outcome.duplicated++;
      outcome.details.push(`duplicated: ${label}: ${made.map((model) => model.id).join(', ')}`);
    }
    if (!upload.modelId) {
      outcome.unacknowledged++;
      outcome.details.push(`unacknowledged: ${label}: ${upload.error ?? 'no answer'}`);
      if (made.length > 0) {
        outcome.unanswered++;
        const states = made.map((model) => `${model.id} ${model.status}`).join(', ');
        outcome.details.push(`made, answer lost: ${label}: ${states}`);
      }
      continue;
    }
    outcome.acknowledged++;
    const model = byId.get(upload.modelId);
    if (!model) {
      outcome.lost++;
      outcome.details.push(`lost: ${label}: ${upload.modelId}`);
    } else if (model.status === 'completed') outcome.completed++;
    else if (model.status === 'failed') {
      outcome.failed++;
      outcome.details.push(`failed: ${label}: ${model.error ?? ''}`);
    } else {
      outcome.stuck++;
      outcome.details.push(`stuck: ${label}: ${model.id} still ${model.status}`);
    }
  }
  // The unique indexes should make these impossible; counted so that a missing index would show.
  const shared = sharing('upload_id') + sharing('idempotency_key');
  if (shared > 0) outcome.details.push(`${shared} upload_id or idempotency key shared by several models`);
  outcome.duplicated += shared;
  return outcome;
}

/** The report: the outcome table, the faults with their times, then the details. */
export function formatReport(outcome: SoakOutcome, faults: Fault[]): string {
  const seconds = (ms: number | undefined) => (ms === undefined ? '–' : (ms / 1000).toFixed(1));
  return [
    '| uploads | acknowledged | completed | failed | stuck | duplicated | lost | unacknowledged | made, answer lost |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${outcome.uploads} | ${outcome.acknowledged} | ${outcome.completed} | ${outcome.failed} | ${outcome.stuck} | ` +
      `${outcome.duplicated} | ${outcome.lost} | ${outcome.unacknowledged} | ${outcome.unanswered} |`,
    '',
    '| # | fault | due (s) | began (s) | whole again (s) |',
    '|---|---|---|---|---|',
    ...faults.map(
      (fault, n) =>
        `| ${n + 1} | ${fault.kind}${fault.kind.startsWith('kill') ? ` #${fault.target}` : ''} | ${seconds(fault.dueMs)} | ` +
        `${seconds(fault.startedMs)} | ${seconds(fault.endedMs)} |`,
    ),
    '',
    ...outcome.details.map((line) => `- ${line}`),
    '',
  ].join('\n');
}
