import type { Kysely } from 'kysely';

// What made each model, so a retried request answers the model it already made instead of a second one: the
// resumable upload it was taken from, or the `Idempotency-Key` of its multipart request (stored as a hash of the
// token and the key, with a fingerprint of the request to tell a retry from a different request under the same
// key). The unique indexes are what stop two concurrent copies of one request; NULLs never collide.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').addColumn('upload_id', 'text').execute();
  await db.schema.alterTable('models').addColumn('idempotency_key', 'text').execute();
  await db.schema.alterTable('models').addColumn('request_fingerprint', 'text').execute();
  await db.schema.createIndex('models_upload_id').on('models').column('upload_id').unique().execute();
  await db.schema
    .createIndex('models_idempotency_key')
    .on('models')
    .column('idempotency_key')
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('models_idempotency_key').execute();
  await db.schema.dropIndex('models_upload_id').execute();
  await db.schema.alterTable('models').dropColumn('request_fingerprint').execute();
  await db.schema.alterTable('models').dropColumn('idempotency_key').execute();
  await db.schema.alterTable('models').dropColumn('upload_id').execute();
}
