// graphrag's page: ask, watch the answer stream, open cited passages, draw the evidence graph
// (with Cytoscape.js and its fCoSE layout, vendored under vendor/), read the corpus's themes.
// Everything that comes from documents is written with textContent (never innerHTML).
"use strict";

const HISTORY_KEY = "graphrag.history";
const KEY_KEY = "graphrag.key";
const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"];

const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
};

// --- per-tab state ------------------------------------------------------------------------
function loadHistory() {
  try { return JSON.parse(sessionStorage.getItem(HISTORY_KEY) || "[]"); } catch (e) { return []; }
}
function saveHistory(turns) { sessionStorage.setItem(HISTORY_KEY, JSON.stringify(turns.slice(-20))); }

function headers(extra) {
  const h = Object.assign({"Content-Type": "application/json"}, extra || {});
  const key = $("key").value.trim();
  if (key) h["Authorization"] = "Bearer " + key;
  return h;
}

async function failure(response) {
  try { const body = await response.json(); return body.error || response.statusText; }
  catch (e) { return response.status + " " + response.statusText; }
}

// --- server-sent events over fetch (a POST, which EventSource cannot send) ----------------
async function* sse(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, {stream: true}).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trim();
      }
      if (data) yield {event, data: JSON.parse(data)};
    }
  }
}

// --- asking -------------------------------------------------------------------------------
async function ask(said) {
  const turn = el("div", "turn");
  turn.appendChild(el("div", "said", said));
  const rewritten = el("div", "rewritten");
  const answer = el("div", "answer");
  turn.append(rewritten, answer);
  $("conversation").appendChild(turn);
  const history = loadHistory();
  const response = await fetch("/chat", {
    method: "POST", headers: headers({"Accept": "text/event-stream"}),
    body: JSON.stringify({question: said, history, mode: $("mode").value || undefined, stream: true}),
  });
  if (!response.ok) { turn.appendChild(el("div", "error", await failure(response))); return; }
  const answered = (data) => {
    turn.dataset.answer = data.answer_id;
    if (data.question !== said) rewritten.textContent = "(" + data.question + ")";
    showAnswer(turn, answer, data);
    history.push({question: data.question, answer: data.answer,
                  entities: (data.entities || []).map((e) => e.matched || e.name).filter(Boolean),
                  time: (data.filters || {}).time_expression || null});
    saveHistory(history);
    drawAnswerGraph(data);
  };
  // a server (or a proxy) that answers with the whole JSON object instead of a stream
  if (!(response.headers.get("content-type") || "").includes("text/event-stream")) {
    answered(await response.json());
    return;
  }
  for await (const {event, data} of sse(response)) {
    if (event === "question" && data.question !== said) rewritten.textContent = "(" + data.question + ")";
    else if (event === "token") answer.textContent += data.text;
    else if (event === "error") turn.appendChild(el("div", "error", data.error));
    else if (event === "answer") answered(data);
  }
}

// The checked answer: each citation a button with its source's title that opens the passage.
function showAnswer(turn, box, result) {
  const sources = {};
  for (const s of result.sources) sources[s.id] = s;
  box.textContent = "";
  const text = result.answer || "I found no evidence for this question.";
  const pattern = /\[([^\[\]]+)\]/g;
  let at = 0, match;
  while ((match = pattern.exec(text)) !== null) {
    box.appendChild(document.createTextNode(text.slice(at, match.index)));
    const ids = match[1].split(",").map((x) => x.trim());
    const known = ids.map((id) => sources[id.split("::")[0]]).filter(Boolean);
    if (known.length === 0) box.appendChild(document.createTextNode(match[0]));
    const shown = new Set();
    for (const source of known) {
      if (shown.has(source.id)) continue;
      shown.add(source.id);
      box.appendChild(citationButton(source, result));
    }
    at = match.index + match[0].length;
  }
  box.appendChild(document.createTextNode(text.slice(at)));
  showAbstained(turn, box, result);
  if (result.llm && result.llm.note) turn.appendChild(el("div", "note", result.llm.note));
  showRows(turn, result, sources);
  showCommunities(turn, result);
  showTrace(turn, result);
  if (result.citations.length) {
    const list = el("ul", "sources");
    for (const c of result.citations) {
      const item = el("li");
      item.appendChild(citationButton(sources[c.id] || c, result));
      // a web page the web-search fallback fetched: its URL beside the title, as text
      if (c.web && c.uri) item.appendChild(el("span", "web-source", " " + c.uri + " (web)"));
      // the same text in other documents: retrieval kept one chunk per content hash
      const copies = (sources[c.id] || c).also_in || [];
      if (copies.length) {
        item.appendChild(el("span", "also-in", " also in: " + copies.map((d) => (d.title ? d.title + " (" + d.document_id + ")" : d.document_id)).join("; ")));
      }
      list.appendChild(item);
    }
    turn.appendChild(list);
  }
}

// An abstention (the graph holds no answer): the sentence in a box of its own, who abstained and
// why, then the passages nearest the question apart, each its title and a snippet, none cited.
function showAbstained(turn, box, result) {
  const abstained = result.abstained;
  if (!abstained) return;
  box.classList.add("abstained");
  box.dataset.by = abstained.by;
  box.insertBefore(el("span", "abstained-label", "No answer in the graph"), box.firstChild);
  turn.appendChild(el("div", "abstained-why", "Abstained (" + abstained.by + "): " + (abstained.reason || "")));
  const closest = abstained.closest || [];
  if (!closest.length) return;
  const apart = el("div", "closest");
  apart.appendChild(el("div", "closest-heading", abstained.heading || "Closest, not an answer:"));
  const list = el("ul");
  for (const c of closest) {
    const item = el("li");
    item.dataset.document = c.document_id;
    item.appendChild(el("span", "closest-title", c.title || c.document_id));
    item.appendChild(el("span", "closest-text", c.text || ""));  // cut to a snippet by the server
    list.appendChild(item);
  }
  apart.appendChild(list);
  turn.appendChild(apart);
}

// How the answer was found, whichever route gave it: the route's own --explain lines (as text).
function showTrace(turn, result) {
  const trace = result.trace;
  if (!trace || !trace.explain || !trace.explain.length) return;
  const box = el("details", "trace");
  box.appendChild(el("summary", null, "route: " + trace.route));
  box.appendChild(el("pre", null, trace.explain.map((line) => line.trim()).join("\n")));
  turn.appendChild(box);
}

function citationButton(source, result) {
  const button = el("button", "citation", source.title || source.document_id);
  button.type = "button";
  button.dataset.source = source.id;
  button.addEventListener("click", () => openPassage(source, result));
  return button;
}

// A structured answer (a question about the graph itself): why it took that route, the count,
// and its rows as a table, each with the citation of the record or document it comes from.
const MAX_SHOWN_ROWS = 200;

function showRows(turn, result, sources) {
  const plan = result.structured;
  const rows = result.rows || [];
  if (!plan || !plan.family) return;
  const documents = plan.family === "documents" || plan.family === "count_documents";
  const box = el("div", "structured");
  box.dataset.family = plan.family;
  if (plan.reason) box.appendChild(el("div", "reason", "From the graph's structure: " + plan.reason));
  if (plan.family === "count" || plan.family === "count_documents") {
    const count = el("div", "count");
    count.appendChild(el("strong", "", plan.count));
    if (plan.family === "count_documents") {
      const noun = (plan.scope && plan.scope.noun) || "documents";
      count.appendChild(document.createTextNode(" of " + plan.total + " " + noun));
    }
    box.appendChild(count);
  }
  if (rows.length) {
    const table = el("table", "rows");
    const head = el("tr");
    for (const name of [documents ? "Title" : "Name", documents ? "Chunks" : "Type", "Source"]) {
      head.appendChild(el("th", "", name));
    }
    table.appendChild(el("thead")).appendChild(head);
    const body = table.appendChild(el("tbody"));
    for (const row of rows.slice(0, MAX_SHOWN_ROWS)) {
      const line = el("tr");
      line.dataset.id = row.id;
      const name = el("td", "name", documents ? (row.title || row.name) : row.name);
      if (row.relation) name.title = row.relation + (row.via ? " (" + row.via + ")" : "");
      line.appendChild(name);
      line.appendChild(el("td", documents ? "chunks" : "type", documents ? row.chunks : (row.type || "")));
      const cite = el("td", "cite");
      const source = row.cite ? sources[row.cite] : null;
      if (source) cite.appendChild(citationButton(source, result));
      else if (row.cite) cite.textContent = row.cite;
      line.appendChild(cite);
      body.appendChild(line);
    }
    box.appendChild(table);
    if (rows.length > MAX_SHOWN_ROWS) {
      box.appendChild(el("div", "hint", "… and " + (rows.length - MAX_SHOWN_ROWS) + " more (the JSON answer has them all)"));
    }
  }
  turn.appendChild(box);
}

// A global answer (a question about the whole corpus): how it was answered, and the communities
// it used (and those it passed over), each a button that opens the community's report.
const MAX_SHOWN_COMMUNITIES = 30;

function showCommunities(turn, result) {
  const found = result.global;
  if (!found) return;
  const box = el("div", "global");
  if (!found.family) {
    box.appendChild(el("div", "reason", "Not answered from the whole corpus: " + (found.reason || "")));
    turn.appendChild(box);
    return;
  }
  box.dataset.family = found.family;
  const what = found.family === "topic" ? "every document on “" + (found.term || "") + "”" : "the corpus's themes";
  box.appendChild(el("div", "reason", "From the whole corpus (" + what + ", " + found.method + "): " + (found.reason || "")));
  const communities = result.communities || [];
  if (communities.length) box.appendChild(communityList(communities.slice(0, MAX_SHOWN_COMMUNITIES)));
  turn.appendChild(box);
}

// `largest` (the themes panel): each community also gets a bar as long as its share of the largest
function communityList(communities, largest) {
  const list = el("ul", "communities");
  for (const c of communities) {
    const item = el("li", c.used === false ? "unused" : "used");
    item.dataset.id = c.id;
    if (largest) {
      const bar = el("span", "size-bar");
      bar.style.width = Math.max(2, Math.round(100 * (c.size || 0) / largest)) + "px";  // CSSOM: allowed by the CSP
      bar.title = c.size + " members";
      item.appendChild(bar);
    }
    item.appendChild(communityButton(c));
    const count = (n, noun) => (n === undefined || n === null ? null : n + " " + noun + (n === 1 ? "" : "s"));
    const size = [count(largest ? c.size : null, "member"), count(c.documents, "document"), count(c.chunks, "chunk")]
      .filter(Boolean).join(", ");
    if (size) item.appendChild(document.createTextNode(" (" + size + ")"));
    if (c.phrases && c.phrases.length) item.appendChild(el("span", "phrases", " " + c.phrases.slice(0, 6).join(", ")));
    if (c.why) item.appendChild(el("div", "why", (c.used === false ? "not used: " : "") + c.why));
    list.appendChild(item);
  }
  return list;
}

function communityButton(c) {
  const button = el("button", "community", c.title || c.id);
  button.type = "button";
  button.dataset.community = c.id;
  button.addEventListener("click", () => openCommunity(c.id));
  return button;
}

async function openCommunity(id) {
  const response = await fetch("/communities/" + encodeURIComponent(id), {headers: headers()});
  $("passage").hidden = false;
  $("passage-link").hidden = true;
  const box = $("passage-text");
  box.textContent = "";
  if (!response.ok) { $("passage-title").textContent = id; box.appendChild(el("p", "error", await failure(response))); return; }
  const c = await response.json();
  $("passage-title").textContent = (c.title || c.id) + " (level " + c.level + ", " + c.size + " members)";
  box.appendChild(communityMembers(c));
  if (c.phrases && c.phrases.length) box.appendChild(el("p", "phrases", "Phrases: " + c.phrases.join(", ")));
  if ((c.sentences || []).length) box.appendChild(el("h3", null, "Representative sentences"));
  for (const sentence of c.sentences || []) box.appendChild(el("p", "passage", sentence));
  if (c.llmReport) box.appendChild(el("p", "passage llm-report", c.llmReport));
  $("passage").scrollIntoView({block: "nearest"});
}

// A community's members: how many of each kind, its most mentioned entities and its main
// documents, each a button that draws its neighbourhood in the graph.
const MAX_SHOWN_MEMBERS = 12;

function communityMembers(c) {
  const box = el("div", "members");
  box.appendChild(el("h3", null, "Members"));
  box.appendChild(el("p", "hint", c.entities + " entities and " + c.chunks + " chunks, from " + c.documents + " documents"));
  const names = c.topEntities || [], ids = c.topEntityIds || [];
  const groups = [["Entities", names.map((name, i) => [ids[i], name])], ["Documents", (c.documentIds || []).map((d) => [d, d])]];
  for (const [heading, members] of groups) {
    if (!members.length) continue;
    const line = el("p", "member-list");
    line.appendChild(el("span", "member-kind", heading + ": "));
    for (const [id, name] of members.slice(0, MAX_SHOWN_MEMBERS)) {
      if (!id) { line.appendChild(el("span", "member", name)); continue; }
      const button = el("button", "member", name);
      button.type = "button";
      button.dataset.id = id;
      button.title = "draw its neighbours in the evidence graph";
      button.addEventListener("click", () => drawNeighbourhood(id));
      line.appendChild(button);
    }
    if (members.length > MAX_SHOWN_MEMBERS) line.appendChild(el("span", "hint", " and " + (members.length - MAX_SHOWN_MEMBERS) + " more"));
    box.appendChild(line);
  }
  return box;
}

// the mode list comes from the server's registry (GET /modes), so a new mode needs no page change
async function loadModes() {
  const response = await fetch("/modes", {headers: headers()});
  if (!response.ok) return;  // the one "default mode" option stays: the server picks
  const select = $("mode");
  select.textContent = "";
  for (const mode of (await response.json()).modes) {
    const option = el("option", null, mode.name === "global" ? "global (the whole corpus)" : mode.name);
    option.value = mode.name;
    option.title = mode.summary;
    if (mode.default) option.selected = true;
    select.appendChild(option);
  }
}

async function loadThemes() {
  const box = $("themes-list");
  box.textContent = "loading…";
  const response = await fetch("/communities?level=0&limit=20", {headers: headers()});
  box.textContent = "";
  if (!response.ok) { box.appendChild(el("div", "error", await failure(response))); return; }
  const found = await response.json();
  if (!found.state) { box.appendChild(el("div", "hint", "No communities yet: run graphrag communities build.")); return; }
  box.appendChild(el("div", "hint", found.communities.length + " top-level communities, built " + found.state.builtAt));
  const largest = Math.max(1, ...found.communities.map((c) => c.size || 0));
  box.appendChild(communityList(found.communities, largest));
}

function openPassage(source, result) {
  $("passage").hidden = false;
  $("passage-title").textContent = source.title || source.document_id;
  const link = $("passage-link");
  const uri = source.uri || "";
  link.hidden = !/^https?:\/\//i.test(uri);
  if (!link.hidden) link.href = uri;
  const box = $("passage-text");
  box.textContent = "";
  const passages = result.evidence.filter((e) => e.document_id === source.document_id);
  for (const ev of passages) box.appendChild(el("p", "passage", ev.text));
  // a loaded record (a structured answer's R1, R2, …) has no passage: say where it comes from
  if (!passages.length && /^R\d+$/.test(source.id)) {
    box.appendChild(el("p", "record", "From the loaded record " + source.document_id));
  }
  $("passage").scrollIntoView({block: "nearest"});
}

// --- learning -----------------------------------------------------------------------------
async function learn(line) {
  const turn = el("div", "turn");
  turn.appendChild(el("div", "said", line));
  const status = el("div", "note", "learning…");
  turn.appendChild(status);
  $("conversation").appendChild(turn);
  const response = await fetch("/crawl", {method: "POST", headers: headers(), body: JSON.stringify({request: line})});
  if (!response.ok) { status.className = "error"; status.textContent = await failure(response); return; }
  let job = await response.json();
  while (job.state === "queued" || job.state === "running") {
    await new Promise((r) => setTimeout(r, 1000));
    const poll = await fetch("/jobs/" + encodeURIComponent(job.id), {headers: headers()});
    if (!poll.ok) { status.className = "error"; status.textContent = await failure(poll); return; }
    job = await poll.json();
    const d = (job.progress || {}).documents;
    if (d) status.textContent = `learning… ${d.created} new, ${d.updated} updated, ${d.unchanged} unchanged, ${d.failed} failed`;
  }
  if (job.state === "failed") { status.className = "error"; status.textContent = job.error; return; }
  const d = job.summary.documents;
  status.textContent = `learned: ${d.created} new, ${d.updated} updated, ${d.unchanged} unchanged, ${d.failed} failed`;
  for (const line of job.summary.errors || []) turn.appendChild(el("div", "error", line.item + ": " + line.error));
}

// --- the evidence graph: Cytoscape.js (vendor/) draws it, its fCoSE extension lays it out ----
// Labels are drawn on the canvas (text, never markup). A node's colour is its type's; a node the
// answer stands on (a row, a cited document or one of its chunks) is ringed; a click draws its
// neighbours; the wheel or the buttons zoom, a drag pans. fCoSE, not the built-in CoSE: with the
// labels counted in the nodes' sizes it left no two labels overlapping on the demo answers, where
// CoSE left one or two pairs in most runs.
const LAYOUT = {
  name: "fcose",
  quality: "default",
  randomize: true,
  animate: false,
  fit: false,  // fitted after, with a zoom cap: two nodes are not drawn at four times their size
  nodeDimensionsIncludeLabels: true,  // a label takes room: the forces keep labels apart, not only dots
  idealEdgeLength: () => 70,  // room for the relationship type on the edge
  packComponents: true,  // the pieces of a disconnected answer side by side, not strewn
};
const FIT_PADDING = 24;
const FIT_MAX_ZOOM = 1.5;
const graph = {cy: null, colours: new Map(), marked: new Set(), markedAs: ""};

const GRAPH_STYLE = [
  {selector: "node", style: {
    "background-color": "data(colour)", "width": 14, "height": 14,
    "label": "data(name)", "font-size": 11, "color": "#1d2330",
    "text-valign": "bottom", "text-halign": "center", "text-margin-y": 3,
    "text-wrap": "ellipsis", "text-max-width": "150px",
    "text-background-color": "#fcfcfd", "text-background-opacity": 0.85, "text-background-padding": "1px",
  }},
  {selector: "node.marked", style: {"border-width": 3, "border-color": "#1d2330", "font-weight": "bold"}},
  {selector: "node:selected", style: {"border-width": 3, "border-color": "#d4145a"}},
  {selector: "edge", style: {
    "width": 1.2, "line-color": "#b4bac6", "curve-style": "bezier",
    "target-arrow-shape": "triangle", "target-arrow-color": "#b4bac6", "arrow-scale": 0.8,
    "label": "data(type)", "font-size": 8, "color": "#6b7385", "text-rotation": "autorotate",
    "text-background-color": "#fcfcfd", "text-background-opacity": 0.9, "text-background-padding": "1px",
  }},
];

function colour(type) {
  if (!graph.colours.has(type)) graph.colours.set(type, PALETTE[graph.colours.size % PALETTE.length]);
  return graph.colours.get(type);
}

function startGraph() {
  cytoscape.use(cytoscapeFcose);
  graph.cy = cytoscape({
    container: $("graph"), style: GRAPH_STYLE, minZoom: 0.15, maxZoom: 4,
    boxSelectionEnabled: false, autoungrabify: false,
  });
  window.__graph = graph.cy;  // the browser tests read the drawing from it (label boxes, zoom)
  graph.cy.on("tap", "node", (event) => {
    const node = event.target;
    showNode(node);
    expand(node.id());
  });
  $("graph-zoom-in").addEventListener("click", () => zoomBy(1.25));
  $("graph-zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("graph-fit").addEventListener("click", fitGraph);
}

function zoomBy(factor) {
  const cy = graph.cy;
  cy.zoom({level: cy.zoom() * factor, renderedPosition: {x: cy.width() / 2, y: cy.height() / 2}});
}

function fitGraph() {
  const cy = graph.cy;
  cy.fit(undefined, FIT_PADDING);
  if (cy.zoom() > FIT_MAX_ZOOM) { cy.zoom(FIT_MAX_ZOOM); cy.center(); }
}

// The nodes the answer stands on: its rows, its cited documents and their chunks in the evidence.
function answerMarks(result) {
  const marks = new Set((result.rows || []).map((r) => r.id));
  const cited = new Set((result.citations || []).map((c) => c.document_id));
  for (const id of cited) marks.add(id);
  for (const ev of result.evidence || []) if (cited.has(ev.document_id)) marks.add(ev.chunk_id);
  return marks;
}

function elements(found) {
  const nodes = found.nodes.map((n) => ({group: "nodes", data: {
    id: n.id, type: n.label, name: String(n.name || n.id), colour: colour(n.label)}}));
  const edges = found.edges.map((e) => ({group: "edges", data: {
    id: e.source + "|" + e.type + "|" + e.target, source: e.source, target: e.target, type: e.type}}));
  return {nodes, edges};
}

// Adds what is not drawn yet; new nodes around `around` start on the library's circle layout
// there, then the force layout runs from where everything is (the old nodes stay near their place).
function addToGraph(found, around) {
  const cy = graph.cy;
  const {nodes, edges} = elements(found);
  const fresh = cy.add(nodes.filter((n) => cy.getElementById(n.data.id).empty()));
  cy.add(edges.filter((e) => cy.getElementById(e.data.id).empty()
    && !cy.getElementById(e.data.source).empty() && !cy.getElementById(e.data.target).empty()));
  cy.nodes().forEach((n) => { n.toggleClass("marked", graph.marked.has(n.id())); });
  const origin = around ? cy.getElementById(around) : cy.collection();
  if (origin.nonempty() && fresh.nonempty()) {
    const at = origin.position();
    fresh.layout({name: "circle", fit: false, animate: false,
                  boundingBox: {x1: at.x - 60, y1: at.y - 60, w: 120, h: 120}}).run();
    cy.layout(Object.assign({}, LAYOUT, {randomize: false})).run();
  } else {
    cy.layout(LAYOUT).run();
  }
  fitGraph();
  drawLegend();
}

function drawLegend() {
  const legend = $("legend");
  legend.textContent = "";
  const types = new Set(graph.cy.nodes().map((n) => n.data("type")));
  for (const [type, fill] of graph.colours) {
    if (!types.has(type)) continue;
    const item = el("li", null);
    item.dataset.type = type;
    const swatch = el("span", "swatch");
    swatch.style.backgroundColor = fill;  // a CSSOM property, not markup: the CSP allows it
    item.append(swatch, document.createTextNode(type));
    legend.appendChild(item);
  }
  if (graph.cy.nodes(".marked").nonempty()) {
    const item = el("li", "marked");
    item.append(el("span", "swatch ring"), document.createTextNode(graph.markedAs));
    legend.appendChild(item);
  }
}

function showNode(node) {
  const box = $("graph-node");
  box.textContent = "";
  box.append(el("strong", null, node.data("type") + ": "), document.createTextNode(node.data("name")));
  box.appendChild(el("span", "hint", " (" + node.id() + ")"));
}

async function drawAnswerGraph(result) {
  const response = await fetch("/graph?answer=" + encodeURIComponent(result.answer_id), {headers: headers()});
  if (!response.ok) return;
  const found = await response.json();
  graph.cy.elements().remove();
  graph.marked = answerMarks(result);
  graph.markedAs = "the answer's rows and cited passages";
  $("graph-node").textContent = "";
  addToGraph(found, null);
  $("graph").dataset.answer = result.answer_id;  // which answer the drawing is of
}

// One node and its neighbours, drawn afresh (a community's member, from the themes panel).
async function drawNeighbourhood(id) {
  graph.cy.elements().remove();
  delete $("graph").dataset.answer;
  graph.marked = new Set([id]);
  graph.markedAs = "the community's member";
  await expand(id);
  const node = graph.cy.getElementById(id);
  if (node.nonempty()) showNode(node);
  $("graph-panel").scrollIntoView({block: "nearest"});
}

async function expand(id) {
  const response = await fetch("/graph?limit=15&id=" + encodeURIComponent(id), {headers: headers()});
  if (!response.ok) return;
  addToGraph(await response.json(), id);
}

// --- wiring -------------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  $("key").value = sessionStorage.getItem(KEY_KEY) || "";
  $("key").addEventListener("change", () => sessionStorage.setItem(KEY_KEY, $("key").value.trim()));
  for (const turn of loadHistory()) {
    const box = el("div", "turn");
    box.append(el("div", "said", turn.question), el("div", "answer", turn.answer));
    $("conversation").appendChild(box);
  }
  startGraph();
  loadModes().catch(() => {});
  $("passage-close").addEventListener("click", () => { $("passage").hidden = true; });
  $("themes").addEventListener("toggle", () => { if ($("themes").open) loadThemes(); });
  $("clear").addEventListener("click", () => { saveHistory([]); $("conversation").textContent = ""; });
  $("ask").addEventListener("submit", async (event) => {
    event.preventDefault();
    const line = $("question").value.trim();
    if (!line) return;
    $("question").value = "";
    $("send").disabled = true;
    try {
      if (line.toLowerCase().startsWith("learn:")) await learn(line);
      else await ask(line);
    } catch (e) {
      $("conversation").appendChild(el("div", "error", String(e)));
    } finally {
      $("send").disabled = false;
    }
  });
});
