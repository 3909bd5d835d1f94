import type { Kysely } from 'kysely';

// The resumable upload each version was taken from, so `POST /api/models/:id/versions {upload_id}` retried after a
// lost answer answers the version it made instead of 404 (the upload is gone by then), as `POST /api/models` does
// with `models.upload_id`. The unique index stops two concurrent copies of one request; NULLs never collide.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('model_versions').addColumn('upload_id', 'text').execute();
  await db.schema
    .createIndex('model_versions_upload_id')
    .on('model_versions')
    .column('upload_id')
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('model_versions_upload_id').execute();
  await db.schema.alterTable('model_versions').dropColumn('upload_id').execute();
}
