/** Entry of the share page `/s/<secret>` (`?embed=1` for the bare viewer in an iframe). */
import { mountSharePage } from './share-page.ts';

const root = document.getElementById('share');
if (!root) throw new Error('share.html has no #share element');
void mountSharePage(root, new URLSearchParams(location.search).get('embed') === '1');
