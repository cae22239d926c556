// Message catalogs: every word the page shows comes from here.
// t(key, params) looks the key up in the chosen language ({name} placeholders
// are replaced from params); the language is the stored choice, else the
// browser's, else English.

export const LANGUAGES = ["en", "es", "fr", "it", "zh-Hant"];
const STORE = "fourcards.lang";
let catalog = {};
let current = "en";

/** The catalog language that best matches one browser language tag. */
export function matchLanguage(tag) {
  const lower = String(tag || "").toLowerCase();
  if (lower.startsWith("zh")) return "zh-Hant";
  const base = lower.split("-")[0];
  return LANGUAGES.includes(base) ? base : null;
}

/** The stored choice, else the first browser language we have, else English. */
export function preferredLanguage() {
  const stored = localStorage.getItem(STORE);
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language]) {
    const found = matchLanguage(tag);
    if (found) return found;
  }
  return "en";
}

export async function setLanguage(lang, remember = false) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  const response = await fetch(new URL(`i18n/${lang}.json`, import.meta.url));
  if (!response.ok) throw new Error(`catalog ${lang}: HTTP ${response.status}`);
  catalog = await response.json();
  current = lang;
  document.documentElement.lang = lang;
  if (remember) localStorage.setItem(STORE, lang);
}

export function language() {
  return current;
}

/** The message for key, with {placeholders} filled from params. */
export function t(key, params = {}) {
  const text = catalog[key];
  if (text === undefined) {
    console.warn("missing message", key);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Whether the catalog has key (for optional, data-driven keys). */
export function has(key) {
  return key in catalog;
}

/** Format a number in the current language. */
export function num(value) {
  return new Intl.NumberFormat(current === "zh-Hant" ? "zh-TW" : current).format(value);
}
