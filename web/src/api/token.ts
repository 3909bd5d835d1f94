/** The API token, kept in localStorage so it is entered once per browser. */

const STORAGE_KEY = 'vitrine.apiToken';

/** The stored token, or null when none was entered yet. */
export function getToken(): string | null {
  return localStorage.getItem(STORAGE_KEY);
}

/** Stores the token for later visits. */
export function setToken(token: string): void {
  localStorage.setItem(STORAGE_KEY, token);
}

/** Forgets the token, e.g. after the server rejected it. */
export function clearToken(): void {
  localStorage.removeItem(STORAGE_KEY);
}
