/** Asks for the API token once and checks it against the catalog before keeping it. */
import { ApiError } from '../api/api-error.ts';
import { listModels } from '../api/catalog-api.ts';
import { clearToken, setToken } from '../api/token.ts';
import { h, uid } from '../ui/dom.ts';

/** Renders the token form into `outlet`; calls `onAccepted` once the server accepts the token. */
export function mountTokenPage(outlet: HTMLElement, onAccepted: () => void, reason?: string): void {
  const inputId = uid('token');
  const input = h('input', {
    id: inputId,
    type: 'password',
    name: 'token',
    autocomplete: 'current-password',
    required: true,
    spellcheck: false,
  });
  const message = h('p', { class: 'form-error', role: 'alert' }, reason ?? '');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Continue');
  const form = h(
    'form',
    { class: 'token-form card' },
    h('h1', {}, 'Vitrine'),
    h(
      'p',
      {},
      'Enter the API token of this server. It is sent as the X-API-Token header and kept in this browser. ',
      'The server prints it at start-up and stores it in DATA_DIR/api-token unless API_TOKEN is set.',
    ),
    h('label', { for: inputId }, 'API token'),
    input,
    message,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    submit.disabled = true;
    message.textContent = 'Checking…';
    setToken(token);
    listModels({ limit: 1 })
      .then(() => onAccepted())
      .catch((error: unknown) => {
        clearToken();
        message.textContent =
          error instanceof ApiError && error.status === 401
            ? `The server rejected this token (${error.message}).`
            : `Could not check the token: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  outlet.replaceChildren(h('div', { class: 'token-page' }, form));
  input.focus();
}
