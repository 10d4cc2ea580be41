// graphrag's page: ask, watch the answer stream, open cited passages, draw the evidence graph.
// Everything that comes from documents is written with textContent (never innerHTML).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
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
    if (data.question !== said) rewritten.textContent = "(" + data.question + ")";
    showAnswer(turn, answer, data);
    history.push({question: data.question, answer: data.answer,
                  entities: (data.entities || []).map((e) => e.matched || e.name).filter(Boolean),
                  time: (data.filters || {}).time_expression || null});
    saveHistory(history);
    drawAnswerGraph(data.answer_id);
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

function communityList(communities) {
  const list = el("ul", "communities");
  for (const c of communities) {
    const item = el("li", c.used === false ? "unused" : "used");
    item.dataset.id = c.id;
    item.appendChild(communityButton(c));
    const count = (n, noun) => (n === undefined || n === null ? null : n + " " + noun + (n === 1 ? "" : "s"));
    const size = [count(c.documents, "document"), count(c.chunks, "chunk")].filter(Boolean).join(", ");
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
  if (c.phrases && c.phrases.length) box.appendChild(el("p", "phrases", "Phrases: " + c.phrases.join(", ")));
  if (c.topEntities && c.topEntities.length) box.appendChild(el("p", "entities", "Entities: " + c.topEntities.join(", ")));
  for (const sentence of c.sentences || []) box.appendChild(el("p", "passage", sentence));
  if (c.llmReport) box.appendChild(el("p", "passage llm-report", c.llmReport));
  $("passage").scrollIntoView({block: "nearest"});
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
  box.appendChild(communityList(found.communities));
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

// --- the graph: a small force layout drawn as SVG -----------------------------------------
const view = {nodes: new Map(), edges: new Map(), colours: new Map()};

function colour(label) {
  if (!view.colours.has(label)) view.colours.set(label, PALETTE[view.colours.size % PALETTE.length]);
  return view.colours.get(label);
}

function merge(graph, around) {
  const base = around ? view.nodes.get(around) : null;
  const fresh = graph.nodes.filter((n) => !view.nodes.has(n.id));
  fresh.forEach((n, i) => {  // new nodes start on a ring around their origin, each in its own place
    const a = 2 * Math.PI * i / Math.max(fresh.length, 1);
    const r = base ? 70 : 170;
    view.nodes.set(n.id, Object.assign({}, n, {
      x: (base ? base.x : 400) + Math.cos(a) * r, y: (base ? base.y : 240) + Math.sin(a) * r}));
  });
  for (const e of graph.edges) view.edges.set(e.source + "|" + e.type + "|" + e.target, e);
}

function layout(steps) {
  const nodes = [...view.nodes.values()];
  const edges = [...view.edges.values()].filter((e) => view.nodes.has(e.source) && view.nodes.has(e.target));
  for (let s = 0; s < steps; s++) {
    const cool = 1 - s / steps;
    for (const a of nodes) { a.dx = (400 - a.x) * 0.02; a.dy = (240 - a.y) * 0.02; }
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i], b = nodes[j];
        let dx = a.x - b.x, dy = a.y - b.y;
        if (dx === 0 && dy === 0) { dx = (i - j) * 0.1; dy = 0.1; }
        const d = Math.sqrt(dx * dx + dy * dy);
        const f = 4000 / Math.max(d * d, 100);
        a.dx += dx / d * f; a.dy += dy / d * f; b.dx -= dx / d * f; b.dy -= dy / d * f;
      }
    }
    for (const e of edges) {
      const a = view.nodes.get(e.source), b = view.nodes.get(e.target);
      const dx = b.x - a.x, dy = b.y - a.y;
      const d = Math.max(Math.sqrt(dx * dx + dy * dy), 1);
      const f = (d - 80) * 0.04;
      a.dx += dx / d * f; a.dy += dy / d * f; b.dx -= dx / d * f; b.dy -= dy / d * f;
    }
    for (const a of nodes) {
      const step = 25 * cool + 1;
      a.x = Math.min(770, Math.max(20, a.x + Math.max(-step, Math.min(step, a.dx))));
      a.y = Math.min(465, Math.max(15, a.y + Math.max(-step, Math.min(step, a.dy))));
    }
  }
  return edges;
}

function draw() {
  const svg = $("graph");
  const edges = layout(200);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  for (const e of edges) {
    const a = view.nodes.get(e.source), b = view.nodes.get(e.target);
    const line = document.createElementNS(SVG, "line");
    line.setAttribute("x1", a.x); line.setAttribute("y1", a.y); line.setAttribute("x2", b.x); line.setAttribute("y2", b.y);
    line.setAttribute("stroke", "#a8afbd"); line.setAttribute("class", "edge");
    const title = document.createElementNS(SVG, "title");
    title.textContent = e.type;
    line.appendChild(title);
    svg.appendChild(line);
  }
  for (const n of view.nodes.values()) {
    const g = document.createElementNS(SVG, "g");
    g.setAttribute("class", "node");
    g.dataset.id = n.id;
    const circle = document.createElementNS(SVG, "circle");
    circle.setAttribute("cx", n.x); circle.setAttribute("cy", n.y); circle.setAttribute("r", 7);
    circle.setAttribute("fill", colour(n.label));
    const label = document.createElementNS(SVG, "text");
    label.setAttribute("x", n.x + 9); label.setAttribute("y", n.y + 4);
    const name = String(n.name || n.id);
    label.textContent = name.length > 28 ? name.slice(0, 27) + "…" : name;
    const title = document.createElementNS(SVG, "title");
    title.textContent = n.label + ": " + name;
    g.append(circle, label, title);
    g.addEventListener("click", () => expand(n.id));
    svg.appendChild(g);
  }
  const legend = $("legend");
  legend.textContent = "";
  for (const [label, fill] of view.colours) {
    const item = el("span");
    const dot = document.createElementNS(SVG, "svg");
    dot.setAttribute("width", "10"); dot.setAttribute("height", "10");
    const c = document.createElementNS(SVG, "circle");
    c.setAttribute("cx", 5); c.setAttribute("cy", 5); c.setAttribute("r", 5); c.setAttribute("fill", fill);
    dot.appendChild(c);
    item.append(dot, document.createTextNode(" " + label));
    legend.appendChild(item);
  }
}

async function drawAnswerGraph(answerId) {
  const response = await fetch("/graph?answer=" + encodeURIComponent(answerId), {headers: headers()});
  if (!response.ok) return;
  view.nodes.clear(); view.edges.clear();
  merge(await response.json(), null);
  draw();
}

async function expand(id) {
  const response = await fetch("/graph?limit=15&id=" + encodeURIComponent(id), {headers: headers()});
  if (!response.ok) return;
  merge(await response.json(), id);
  draw();
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
