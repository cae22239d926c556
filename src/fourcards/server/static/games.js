// Each game's table: the game's own page module when the server names one
// (its catalogue entry's ``script``), over the generic table, which draws any
// game from its view alone (generic.js). Nothing here knows a game.
//
// A game's module is an ES module whose default export is an object with any
// of the generic table's parts, each given the view's structured data (never
// a text to parse):
//   board(obs, ctx)            the nodes of the board, from the seat's view
//   seatFacts(obs, seat, ctx)  short facts next to a seat
//   action(action, ctx)        a legal action's button: {action, text, kind, ...fields}
//   cardsOf(action)            the card names a move uses (hand selection narrows by them)
//   group(action, ctx)         optional: {key, label} to choose a group of moves first
//   history(record, ctx)       one history line ({kind, ...fields, text}), or null
//   realtime, live(obs, ctx, send)  a real-time table's own moves panel
// ctx: {game, seat, players, legal, seatName(seat), selectable(cardNode, name)}.
// Modules import the page's helpers by the import map's "fourcards/" prefix
// (index.html), e.g. `import { h } from "fourcards/dom.js"`.

import generic from "./generic.js";
import { BASE } from "./api.js";

export { commonHistory } from "./generic.js";
export { generic };

const loaded = new Map(); // a module's address -> Promise of its game's renderer

async function load(entry) {
  if (!entry || !entry.script) return generic;
  try {
    const module = await import(new URL(entry.script, BASE).href);
    const own = module.default;
    if (!own || typeof own !== "object") throw new TypeError("the module has no default export of a table");
    return { ...generic, ...own };
  } catch (error) {
    console.warn(`The page module of ${entry.name} (${entry.script}) did not load; the generic table draws it.`, error);
    return generic;
  }
}

/** The renderer of a game from its catalogue entry (its module loaded once). */
export function rendererFor(entry) {
  if (!entry || !entry.script) return Promise.resolve(generic);
  if (!loaded.has(entry.script)) loaded.set(entry.script, load(entry));
  return loaded.get(entry.script);
}
