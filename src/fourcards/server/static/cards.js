// Drawing the cards of every game as they look on the table, with their
// colour always written too (never colour alone).

import { h, svg } from "./dom.js";
import { t, has, num } from "./i18n.js";

let zangleShapes = {};
let elementsDeck = { cards: {}, families: {}, categories: [] };

/** Load the shape geometry and the element deck the drawings need. */
export async function loadCardData() {
  const [shapes, deck] = await Promise.all([
    fetch(new URL("data/zangle-shapes.json", import.meta.url)).then((r) => r.json()),
    fetch(new URL("data/elements.json", import.meta.url)).then((r) => r.json()),
  ]);
  zangleShapes = shapes;
  elementsDeck = deck;
}

let defaultDeck = null;

export function deck() {
  return elementsDeck;
}

/** Use the table's deck (Four Pack, Duelo: the server's welcome.deck). The
 * chemical-elements deck keeps its translated names; another deck's names are
 * shown as the deck gives them. */
export function useDeck(tableDeck) {
  defaultDeck = defaultDeck || elementsDeck;
  if (!tableDeck || tableDeck.name === defaultDeck.name) {
    elementsDeck = defaultDeck;
    return;
  }
  elementsDeck = {
    custom: true,
    name: tableDeck.name,
    families: tableDeck.families || {},
    categories: tableDeck.categories || [],
    cards: Object.fromEntries((tableDeck.cards || []).map((card) => [card.id, { symbol: card.id, name: card.name, values: card.values }])),
  };
}

function translated(key) {
  return !elementsDeck.custom && has(key);
}

// -- Gang of Four: G/Y/R 1-10, M1, phoenixes GP YP, dragon RD ----------------------

const GOF_COLOURS = { G: "green", Y: "yellow", R: "red", M: "multi" };

export function gofCard(code) {
  code = String(code).toUpperCase();
  const colour = code[0];
  const rest = code.slice(1);
  const colourName = t(`colour.${GOF_COLOURS[colour] || "multi"}`);
  let face;
  let label;
  if (rest === "P") {
    label = t("gof.card.phoenix", { colour: colourName });
    face = [emblem("phoenix"), h("span", { class: "word" }, t("gof.phoenix"))];
  } else if (rest === "D") {
    label = t("gof.card.dragon", { colour: colourName });
    face = [emblem("dragon"), h("span", { class: "word" }, t("gof.dragon"))];
  } else {
    label = colour === "M" ? t("gof.card.multi", { value: rest }) : t("gof.card.number", { colour: colourName, value: rest });
    face = [h("span", { class: "rank" }, rest)];
  }
  return h("span", { class: `card gof gof-${colour}`, role: "img", "aria-label": label, title: label, dataset: { card: code } },
    h("span", { class: "index", "aria-hidden": "true" }, t(`colour.short.${GOF_COLOURS[colour] || "multi"}`)), face);
}

function emblem(kind) {
  // A phoenix: rising wings; a dragon: a coiled body with a flame.
  const path = kind === "phoenix"
    ? "M12 21 C 9 16, 3 15, 2 8 C 6 11, 9 11, 11 9 C 10 6, 11 3, 12 2 C 13 3, 14 6, 13 9 C 15 11, 18 11, 22 8 C 21 15, 15 16, 12 21 Z"
    : "M4 18 C 2 12, 8 9, 12 12 C 16 15, 21 11, 19 6 C 18 3, 14 3, 14 6 C 17 5, 17 9, 14 10 C 10 11, 6 7, 3 11 C 1 14, 2 17, 4 18 Z M17 3 L 20 1 L 19 4 Z";
  return svg("svg", { class: "emblem", viewBox: "0 0 24 22", "aria-hidden": "true" }, svg("path", { d: path }));
}

// -- Four Color Cards: the Chinese-chess character on its colour -------------------
// The characters come from the page's own font (static/fonts, 14 glyphs, made by
// tools/generate_page_font.py): a browser without a CJK font draws them too. The
// rank's letter (the notation's) is on the card as well.

const FC_COLOURS = "RGYW";
const FC_RANKS = "GAECHNS";
const FC_COLOUR_NAMES = ["red", "green", "yellow", "white"];
const FC_RANK_NAMES = ["general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier"];
// Red and yellow cards carry the red side's characters, green and white the black side's.
const RED_SIDE = "帥仕相俥傌炮兵";
const BLACK_SIDE = "將士象車馬包卒";

/** A Four Color card from its code (0..27) or name ("RG" = red General). */
export function fcName(card) {
  if (typeof card === "number") return FC_COLOURS[Math.floor(card / 7)] + FC_RANKS[card % 7];
  return String(card).toUpperCase();
}

export function fcCharacter(card) {
  const name = fcName(card);
  const colour = FC_COLOURS.indexOf(name[0]);
  const rank = FC_RANKS.indexOf(name[1]);
  return (colour === 0 || colour === 2 ? RED_SIDE : BLACK_SIDE)[rank];
}

export function fcCard(card) {
  const name = fcName(card);
  const colour = FC_COLOUR_NAMES[FC_COLOURS.indexOf(name[0])];
  const rank = FC_RANK_NAMES[FC_RANKS.indexOf(name[1])];
  const label = t("fc.card", { colour: t(`colour.${colour}`), rank: t(`fc.rank.${rank}`) });
  return h("span", { class: `card fc fc-${colour}`, role: "img", "aria-label": label, title: label, dataset: { card: name } },
    h("span", { class: "index", "aria-hidden": "true" }, name[1]),
    h("span", { class: "glyph", lang: "zh-Hant" }, fcCharacter(name)),
    h("span", { class: "suit" }, t(`colour.short.${colour}`)));
}

// -- Zangle: the polyiamond drawn from the geometry --------------------------------

const ZANGLE_FILL = { 1: "#3b7dd8", 2: "#d8453b", 3: "#8a4fc2", 4: "#e0b021", 5: "#3ba55c" };

export function zangleShape(notation, unit = 22) {
  const shape = zangleShapes[notation];
  if (!shape) return h("span", { class: "zangle-z" }, "Z");
  const pad = 2;
  const polygons = shape.triangles.map((tri) =>
    svg("polygon", { points: tri.map(([x, y]) => `${(x * unit + pad).toFixed(1)},${(y * unit + pad).toFixed(1)}`).join(" ") }));
  const w = shape.width * unit + 2 * pad;
  const ht = shape.height * unit + 2 * pad;
  return svg("svg", { class: "shape", viewBox: `0 0 ${w.toFixed(1)} ${ht.toFixed(1)}`, width: w.toFixed(0), height: ht.toFixed(0),
    fill: ZANGLE_FILL[shape.size], "aria-hidden": "true" }, polygons);
}

export function zangleCard(kind, place) {
  kind = String(kind);
  const shape = zangleShapes[kind];
  const label = shape
    ? t("zangle.card", { shape: kind, size: shape.size })
    : t("zangle.card.z");
  return h("span", { class: `card zangle ${shape ? `size-${shape.size}` : "zangle-blank"}`, role: "img", "aria-label": label, title: label,
    dataset: { card: kind } },
    zangleShape(kind),
    shape ? h("span", { class: "suit" }, kind) : null,
    place ? h("span", { class: `place place-${place}` }, t(`zangle.place.${place}`)) : null);
}

// -- Four Pack and Duelo: element cards ---------------------------------------------

export function elementName(id) {
  const card = elementsDeck.cards[id];
  if (!card) return id;
  return translated(`element.${card.symbol}`) ? t(`element.${card.symbol}`) : card.name;
}

export function familyName(letter) {
  return translated(`family.${letter}`) ? t(`family.${letter}`) : elementsDeck.families[letter] || letter;
}

export function categoryName(id) {
  const category = elementsDeck.categories.find((c) => c.id === id);
  return translated(`category.${id}`) ? t(`category.${id}`) : category ? category.name : id;
}

export function categoryUnit(id) {
  const category = elementsDeck.categories.find((c) => c.id === id);
  if (!category || !category.unit) return "";
  return has(`unit.${category.unit}`) ? t(`unit.${category.unit}`) : category.unit;
}

export function formatValue(category, value) {
  const unit = categoryUnit(category);
  return unit ? `${num(value)} ${unit}` : num(value);
}

export function elementCard(id, { values = false } = {}) {
  const card = elementsDeck.cards[id];
  const family = id[0];
  const label = t("element.card", { name: elementName(id), family: familyName(family), number: id.slice(1) });
  return h("span", { class: `card element family-${family}${values ? " with-values" : ""}`, role: "img", "aria-label": label, title: label, dataset: { card: id } },
    h("span", { class: "family" }, `${family}${id.slice(1)}`),
    h("span", { class: "symbol" }, card ? card.symbol : id),
    h("span", { class: "name" }, elementName(id)),
    values && card
      ? h("dl", { class: "values" }, elementsDeck.categories.map((c) => [
        h("dt", {}, categoryName(c.id)), h("dd", {}, formatValue(c.id, card.values[c.id]))]))
      : null);
}

export function cardBack(count) {
  return h("span", { class: "card back", role: "img", "aria-label": t("card.back", { count }) }, count === undefined ? "" : num(count));
}
