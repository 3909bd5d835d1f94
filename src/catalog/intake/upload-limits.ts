// The upload's own limits, apart from the code that applies them, so the API schemas (which the viewer's build
// reads) can state them without importing the upload handling.

/** Files one multipart upload may carry (a model and its resources); past it the client is asked for a zip. */
export const MAX_UPLOAD_FILES = 256;
