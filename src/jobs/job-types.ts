import type { ExportFormat, ExportMaterialMode, ExportUnit } from '../writers/export-formats.ts';

/** Names of the jobs the service runs; every name has exactly one handler, checked when a worker starts. */
export const JobName = {
  ConvertModel: 'convert-model',
  RenderThumbnail: 'render-thumbnail',
  RenderConfigurationThumbnail: 'render-configuration-thumbnail',
  ExportModel: 'export-model',
  DeliverWebhook: 'deliver-webhook',
} as const;

/** One of {@link JobName}. */
export type JobName = (typeof JobName)[keyof typeof JobName];

/**
 * Groups of jobs with consumers (and slots) of their own: webhook deliveries wait on receivers outside the
 * service's control, so a receiver that never answers must not hold the slots conversions run in.
 */
export const JobLane = {
  Work: 'work',
  Webhooks: 'webhooks',
} as const;

/** One of {@link JobLane}. */
export type JobLane = (typeof JobLane)[keyof typeof JobLane];

/** The lane each job runs in. */
export const JOB_LANE: Record<JobName, JobLane> = {
  [JobName.ConvertModel]: JobLane.Work,
  [JobName.RenderThumbnail]: JobLane.Work,
  [JobName.RenderConfigurationThumbnail]: JobLane.Work,
  [JobName.ExportModel]: JobLane.Work,
  [JobName.DeliverWebhook]: JobLane.Webhooks,
};

/** The job names of a lane. */
export function jobsInLane(lane: JobLane): JobName[] {
  return Object.values(JobName).filter((name) => JOB_LANE[name] === lane);
}

/** Which export of a model: one cached file per model, format, level of detail, material mode, unit and configuration. */
export interface ExportKey {
  model_id: string;
  format: ExportFormat;
  lod: 0 | 1 | 2;
  materials: ExportMaterialMode;
  /** The length unit of STL and 3MF; `meter` for the formats that are always written in metres. */
  unit: ExportUnit;
  /** The configuration baked instead of the present bindings (`materials=bound` only); null for none. */
  configuration_id: string | null;
}

/** The payload each job carries. */
export interface JobPayloads {
  /** `version`: convert that version of the model into its own row and files (absent: the model's current one). */
  [JobName.ConvertModel]: { model_id: string; version?: number };
  /**
   * `after_bindings`: queued by a material binding change rather than asked for, so a thumbnail a person uploaded
   * stays (an explicit regeneration replaces it). The render reads the model's stored files by key when it runs
   * (its tileset, or a level of detail), so the payload names no file. `model_url`: written by earlier releases
   * (LOD 0's address, never read); a job queued with it still runs.
   */
  [JobName.RenderThumbnail]: { model_id: string; after_bindings?: true; model_url?: string };
  [JobName.RenderConfigurationThumbnail]: { model_id: string; configuration_id: string };
  [JobName.ExportModel]: ExportKey;
  [JobName.DeliverWebhook]: { delivery_id: number };
}

/** A claimed job as a handler sees it. */
export interface Job<N extends JobName = JobName> {
  id: string;
  name: N;
  payload: JobPayloads[N];
  /** 1 on the first run. */
  attempt: number;
  maxAttempts: number;
}

/** Runs one job; rejecting fails this attempt. `signal` aborts when the worker stops and hands the job back. */
export type JobHandler<N extends JobName> = (job: Job<N>, signal: AbortSignal) => Promise<void>;

/** What a handler learns when its job has failed for good. */
export type FailureHandler<N extends JobName> = (job: Job<N>, error: Error) => Promise<void>;

/** A handler per job name, plus what to do when a job of that name fails for good. */
export type JobHandlers = {
  [N in JobName]: { run: JobHandler<N>; failed: FailureHandler<N> };
};

/** An error that retrying cannot fix (a corrupt upload): the job fails at once instead of using its other attempts. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

/**
 * Thrown by a handler whose job cannot run yet (its webhook receiver has as many attempts in flight as allowed):
 * the job goes back to the queue for `delayMs` and the attempt does not count.
 */
export class DeferJobError extends Error {
  override readonly name = 'DeferJobError';

  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}
