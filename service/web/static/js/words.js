// The browser client's words in the page's language (issue 29; docs/i18n.md).
//
// The page's <html lang> says the language the server chose (?lang=, the lang cookie or
// Accept-Language); its messages come from /web/words/<lang>.json, the same catalogs the server
// uses (service/i18n/locale/<lang>/LC_MESSAGES/web.po). A message is its English text with
// {placeholders}: t("Send move"), t("{n} players", {n: 3}); tn() picks the plural form.
// scripts/catalogs.py extracts every t() and tn() call, so the message must be a literal string.

export const language = document.documentElement.lang || "en";

let table = {};
if (language !== "en") {
  try {
    const answer = await fetch(`/web/words/${encodeURIComponent(language)}.json`);
    if (answer.ok) table = await answer.json();
  } catch {
    table = {};  // English rather than no page
  }
}

function fill(template, args) {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(args, name) ? String(args[name]) : whole);
}

/** The message in the page's language, its {placeholders} filled from args. */
export function t(message, args = {}) {
  const found = table[message];
  return fill(typeof found === "string" ? found : message, args);
}

const rules = new Intl.PluralRules(language);

/** The counted form of a message: tn("{n} coin", "{n} coins", n). {n} is the count. */
export function tn(singular, plural, n, args = {}) {
  const found = table[singular];
  const all = { n, ...args };
  if (Array.isArray(found)) {
    // gettext's forms for our languages: [one, other]
    return fill(rules.select(n) === "one" ? found[0] : found[found.length - 1], all);
  }
  return fill(n === 1 ? singular : plural, all);
}
