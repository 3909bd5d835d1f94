/**
 * BCF on the model page, in the Annotations card: export the annotations, views and topics as a BCF 3.0 file,
 * import one (saying what each topic became and what was skipped), and the unpinned notes an import brought (topics
 * with nothing to pin or show), which have no pin of their own.
 */
import { exportBcf, importBcf, type BcfImportResult, type Topic } from '../api/review-api.ts';
import type { Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { formatDate } from '../ui/format.ts';
import { attempt } from '../ui/notify.ts';
import type { WriteAccess } from './write-access.ts';

/** The BCF controls and the notes list, and the call that fills the list. */
export interface BcfTools {
  element: HTMLElement;
  renderNotes: (topics: Topic[]) => void;
}

const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

/** One sentence saying what an import did, e.g. `Imported 2 topics: 0 annotations, 1 saved view, 1 unpinned note.` */
export function describeImport(result: BcfImportResult): string {
  const kept = result.imported + result.views + result.notes;
  const parts = [
    plural(result.imported, 'annotation', 'annotations'),
    plural(result.views, 'saved view', 'saved views'),
    plural(result.notes, 'unpinned note', 'unpinned notes'),
  ];
  const skipped = result.skipped > 0 ? ` Skipped ${result.skipped}.` : '';
  return `Imported ${plural(kept, 'topic', 'topics')}: ${parts.join(', ')}.${skipped}`;
}

/** A file name for the export, after the model's name. */
function exportName(model: Model): string {
  return `${model.name.replace(/[^\w .()-]+/g, '_').trim() || 'model'}.bcf`;
}

/** Builds the controls; `onImported` runs after an import so the lists show what came in. */
export function createBcfTools(model: Model, access: WriteAccess, onImported: () => Promise<void>): BcfTools {
  const result = h('div', { class: 'bcf-result', role: 'status', 'aria-live': 'polite' });
  const fileInput = h('input', {
    type: 'file',
    accept: '.bcf,.bcfzip,application/zip',
    hidden: true,
    'aria-label': 'BCF file to import',
  });
  const exportButton = h('button', { type: 'button', class: 'bcf-export' }, 'Export BCF');
  const importButton = h('button', { type: 'button', class: 'bcf-import' }, 'Import BCF');
  const notes = h('ul', { class: 'review-list notes-list', 'aria-label': 'Unpinned notes' });
  const notesSection = h('div', { class: 'bcf-notes', hidden: true }, h('h3', {}, 'Unpinned notes'), notes);

  exportButton.addEventListener('click', () =>
    attempt('Exporting BCF', async () => {
      const url = URL.createObjectURL(await exportBcf(model.id));
      const link = h('a', { href: url, download: exportName(model) });
      document.body.append(link);
      link.click();
      link.remove();
      // The click has handed the blob to the download; the URL is no longer needed.
      setTimeout(() => URL.revokeObjectURL(url), 0);
    }),
  );
  importButton.addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    access.attempt('Importing BCF', async () => {
      importButton.disabled = true;
      result.replaceChildren(`Importing ${file.name}…`);
      try {
        const answer = await importBcf(model.id, file);
        const skipped = answer.skipped_topics.map((topic) =>
          h('li', {}, `${topic.title || topic.guid}: ${topic.reason}`),
        );
        result.replaceChildren(
          h('p', {}, describeImport(answer)),
          ...(skipped.length > 0 ? [h('ul', { class: 'bcf-skipped' }, skipped)] : []),
        );
        await onImported();
      } catch (error) {
        result.replaceChildren();
        throw error;
      } finally {
        importButton.disabled = !access.canWrite;
        fileInput.value = '';
      }
    });
  });
  access.watch((allowed) => {
    importButton.disabled = !allowed;
  });

  const renderNotes = (topics: Topic[]): void => {
    const unpinned = topics.filter((topic) => !topic.annotation_id && !topic.view_id);
    notesSection.hidden = unpinned.length === 0;
    notes.replaceChildren(
      ...unpinned.map((topic) => {
        const said = topic.description ?? topic.comments.find((comment) => comment.text)?.text;
        const byline = [topic.status, topic.author, formatDate(topic.created_at)].filter(Boolean).join(' · ');
        return h(
          'li',
          { class: 'review-item note-item', 'data-topic-id': topic.id },
          h('strong', { class: 'note-title' }, topic.title),
          h('span', { class: 'hint' }, byline),
          said ? h('p', { class: 'note-text' }, said) : [],
          topic.due_date ? h('span', { class: 'hint' }, `Due ${formatDate(topic.due_date)}`) : [],
          topic.comments.length > 0
            ? h('span', { class: 'hint' }, plural(topic.comments.length, 'comment', 'comments'))
            : [],
        );
      }),
    );
  };

  const element = h(
    'div',
    { class: 'bcf-tools' },
    h('div', { class: 'button-row' }, exportButton, importButton, fileInput),
    result,
    notesSection,
  );
  return { element, renderNotes };
}
