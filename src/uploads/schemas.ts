// The shapes of the upload intake that other features see: the files it hands over and the interface they take them
// through. Types only; the intake itself (receive-file.ts, finished-uploads.ts) is built by the app and passed in.
import type { FastifyRequest } from 'fastify';

/**
 * A file of an upload, whole on local disk, as the intake hands it over by either path (a multipart form or a
 * finished resumable upload); whoever takes it moves it into storage or removes it.
 */
export interface UploadedFile {
  /** Temporary file holding the bytes. */
  path: string;
  /** The name the client gave, without folders. */
  filename: string;
  size: number;
}

/** A file of a multipart form: an {@link UploadedFile} that also knows its folders and its CRC-32. */
export interface FormFile extends UploadedFile {
  /** The name the client gave with its folders (`/`-separated, no empty, `.` or `..` segment), e.g. `textures/a.png`. */
  relativeName: string;
  /** CRC-32 of the bytes, counted as they arrived, so the file can be packed into a zip without reading it again. */
  crc32: number;
}

/** What a multipart request carried: its files of the file field (in order) and the text fields. */
export interface ReceivedForm {
  /** The first file, or undefined when there was none. */
  file: FormFile | undefined;
  /** Every file of the file field, at most `maxFiles`. */
  files: FormFile[];
  fields: Record<string, string>;
}

/** Limits of {@link UploadIntake.receiveForm}. */
export interface ReceiveFormOptions {
  /** Form field that carries the file. */
  fileField: string;
  /** Most bytes accepted, all files together; beyond it the request fails with 413 `File too large`. */
  maxBytes: number;
  /** Folder for the temporary files. */
  tmpDir: string;
  /**
   * Most files the file field may carry (default 1). With 1, later files of the field are read and dropped, as
   * they always were; above 1, one more file fails the request with 413 (`tooManyFiles` in receive-file.ts).
   */
  maxFiles?: number;
}

/** A finished upload held by one request while the catalog turns it into a model. */
export interface TakenUpload {
  /** A local copy (or link) of the bytes for the catalog service, which removes it when done. */
  file: UploadedFile;
  /** Removes the upload for good: it became a model. */
  consume(): Promise<void>;
  /** Puts the upload back as it was, so the client may try again (say, with a corrected `unit`). */
  giveBack(): Promise<void>;
}

/** Hands finished resumable uploads to the catalog, one request at a time per upload. */
export interface FinishedUploads {
  /** Takes a finished upload; 404 when unknown, 409 when unfinished or already taken. */
  take(id: string): Promise<TakenUpload>;
  /**
   * Removes whatever is left of an upload that already became a model (its removal failed after the commit, or a
   * failure later in the request put it back); nothing when it is gone. Failures are the caller's to log.
   */
  discard(id: string): Promise<void>;
}

/** The one way files come in: a multipart form streamed to temporary files, or a finished resumable upload. */
export interface UploadIntake extends FinishedUploads {
  /**
   * Streams the files of one file field of a multipart request to temporary files (never a whole file in memory),
   * counting their bytes and CRC-32 as they go, and collects the text fields. Other file fields are read and
   * dropped.
   */
  receiveForm(request: FastifyRequest, options: ReceiveFormOptions): Promise<ReceivedForm>;
}
