/** A failure the client caused, carrying the HTTP status and the exact message the API answers with. */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}
