// DOM look-ups for the match page (building elements is ui.js's el()).

/** The element with this id (the page's DOM contract; a missing one is a bug in the template). */
export function byId(id) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node;
}
