// Railpost game page: a seated player's legal actions as forms, posted to the REST API; reload on new versions.
// No build step and no libraries. The seat token comes from the link's fragment (#seat=...), which browsers
// never send to the server; it is kept in this browser's local storage for this game only.
"use strict";
(function () {
  const body = document.body;
  const gameId = body.dataset.game;
  let version = Number(body.dataset.version);
  const status = body.dataset.status;
  const storeKey = "railpost.seat." + gameId;
  const $ = (id) => document.getElementById(id);
  let token = null;
  let me = null;
  let legal = [];
  let deadEnds = [];  // moves the engine would take that leave only an undo: shown with their reason, not offered
  let endGame = null;  // ending the game by agreement: open to every player at any moment, asked twice
  let proposals = [];  // moves the table's rules put to the players they touch first (legal-actions `proposals`)
  let orders = [];  // the standing orders legal-actions offers (program_*)
  const dataNode = document.getElementById("page-data");
  const pageData = dataNode ? JSON.parse(dataNode.textContent) : { share_sources: {}, train_owners: {}, names: {} };

  // a newcomer's claim of an open seat (docs/time-controls.md, "Hand-over"): the invitation arrives in the
  // fragment (#claim=SEAT:INVITATION); the seat token the claim answers works once the table accepts him,
  // so it is kept apart until then
  const claimKey = "railpost.claim." + gameId;
  let invite = null;
  let claimWaiting = false;

  function takeTokenFromFragment() {
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    const claim = hash.get("claim");
    if (claim && claim.includes(":")) {
      const at = claim.indexOf(":");
      invite = { seat: Number(claim.slice(0, at)), invitation: claim.slice(at + 1) };
      history.replaceState(null, "", location.pathname + location.search);
    }
    // a seat link (#seat=) or the sign-in link of a turn email (#signin=): either is kept on this device
    const seat = hash.get("seat") || hash.get("signin");
    if (seat) {
      try { localStorage.setItem(storeKey, seat); } catch (e) { /* private mode: keep it in memory */ }
      history.replaceState(null, "", location.pathname + location.search);
      return seat;
    }
    let kept = null;
    try { kept = localStorage.getItem(storeKey); } catch (e) { kept = null; }
    if (kept) return kept;
    try { kept = localStorage.getItem(claimKey); } catch (e) { kept = null; }
    if (kept) claimWaiting = true;
    return kept;
  }

  function claimForm() {
    if (!invite || claimWaiting) return;
    const you = $("you");
    const names = pageData.names || {};
    const form = document.createElement("form");
    form.id = "claim"; form.className = "signin";
    const text = document.createElement("p");
    const held = (pageData.seat_players || {})[String(invite.seat)];  // the link names the seat by number
    text.textContent = "You are invited to take over " + (names[String(held)] || "seat " + invite.seat)
      + "'s seat. The players at the table must agree.";
    const name = document.createElement("input");
    name.id = "claim-name"; name.required = true; name.maxLength = 60; name.setAttribute("aria-label", "Your name");
    name.placeholder = "Your name";
    const submit = document.createElement("button"); submit.type = "submit"; submit.textContent = "Claim this seat";
    const said = document.createElement("p"); said.id = "claim-status"; said.setAttribute("role", "status");
    form.append(text, name, document.createTextNode(" "), submit, said);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const r = await api("/games/" + gameId + "/seats/" + invite.seat + "/claim", { method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ invitation: invite.invitation, name: name.value.trim() }) });
      const d = r.data || {};
      if (r.status !== 202) { said.textContent = "Not claimed: " + (d.message || r.status); return; }
      try { localStorage.setItem(claimKey, d.token); } catch (err) { /* private mode: this page only */ }
      said.textContent = "Your claim is made. It waits for the table's answer; once they agree, this page is your seat on this device.";
      submit.disabled = true; name.disabled = true;
    });
    you.hidden = false;
    you.replaceChildren(form);
  }

  async function api(path, options) {
    const headers = Object.assign({ "Accept": "application/json" }, (options && options.headers) || {});
    if (token) headers["Authorization"] = "Bearer " + token;
    const response = await fetch(path, Object.assign({}, options, { headers }));
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { status: response.status, data };
  }

  // an offer posted as the move it is: the range legal-actions states beside a value is no part of it
  const RANGE_KEYS = ["min", "step", "max", "multiple_of"];
  function bare(a) { const out = Object.assign({}, a); RANGE_KEYS.forEach((k) => delete out[k]); return out; }

  // ---------- words --------------------------------------------------------------------------------
  function sharesText(a) {
    const shares = a.shares || [];
    const corp = shares.length ? String(shares[0]).replace(/_[^_]*$/, "") : (a.corporation || "?");
    const from = shares.length ? pageData.share_sources[shares[0]] : null;
    return (a.percent ? a.percent + "% of " : shares.length + " share(s) of ") + corp +
      (a.type === "buy_shares" && from ? " from " + from : "");
  }
  function routesText(a) {
    const routes = a.routes || [];
    const total = routes.reduce((s, r) => s + Number(r.revenue || 0), 0) + Number(a.extra_revenue || 0);
    const parts = routes.map((r) => r.train + ": " + (r.revenue_str || (r.hexes || []).join("-")) + " (" + r.revenue + ")");
    return "Run for " + total + (parts.length ? " — " + parts.join("; ") : " (no route)");
  }
  // a bid offer's range in the mail's words (services/words/describe.py bid_range): keep the two alike
  function bidRange(a, low, high) {
    const top = high !== null ? " to " + high : " up";
    if (a.multiple_of) return "any multiple of " + a.multiple_of + " from " + low + top;
    return "any amount from " + low + top + (a.step ? "; raises of at least " + a.step : "");
  }
  function label(a) {
    switch (a.type) {
      case "pass": return "Pass";
      case "bid": return "Bid on " + (a.company || a.corporation || a.minor);
      case "par": return "Start " + a.corporation + " at " + String(a.share_price || "").split(",")[0];
      case "buy_shares": return "Buy " + sharesText(a);
      case "sell_shares": return "Sell " + sharesText(a);
      case "buy_company": return "Buy " + a.company + " for " + a.price;
      case "sell_company": return "Sell " + a.company + " for " + a.price;
      case "place_token": {
        const hex = hexOfCity(a.city);
        const city = Number(String(a.city).split("-").pop());
        return "Place a token on " + (hex || a.city) + (city > 0 ? " (city " + (city + 1) + ")" : "") +
          (a.slot ? " slot " + (a.slot + 1) : "") + (a.entity_type === "company" ? " with " + a.entity : "");
      }
      case "run_routes": return routesText(a);
      case "dividend": return ({ payout: "Pay out", withhold: "Withhold", half: "Pay half" })[a.kind] ||
        ("Dividend: " + a.kind + (a.amount !== undefined ? " " + a.amount : ""));
      case "buy_train": {
        const owner = pageData.train_owners[a.train];
        return "Buy train " + a.train + (a.variant && a.variant !== a.train.split("-")[0] ? " as " + a.variant : "") +
          (owner ? " from " + owner : " from the depot") + " for " + a.price;
      }
      case "lay_tile": return "Lay " + a.tile + " on " + a.hex + " rotation " + a.rotation;
      case "choose": return "Choose " + (typeof a.choice === "object" ? JSON.stringify(a.choice) : a.choice);
      case "choose_ability": return a.choice && a.choice.type === "sell" ? "Sell " + a.entity + " to the bank"
        : "Use " + a.entity + ": " + ((a.choice && a.choice.type) || JSON.stringify(a.choice));
      case "reassign_trains": return "Assign trains: " + ((a.assignments || []).map((x) => x.train + " to " + x.corporation).join(", ") || "none");
      case "merge": return "Merge with " + a.corporation;
      case "decline": return "Decline " + nameOf(a.proposed_by) + "'s merger with your corporation (it is taken back)";
      case "failed_merge": return "Give up this merger" + (a.corporations ? " (" + [].concat(a.corporations).join(", ") + ")" : "");
      case "remove_token": return "Remove the token in " + a.city;
      case "discard_train": return "Discard train " + a.train;
      case "scrap_train": return "Scrap train " + a.train;
      case "swap_train": return "Swap train " + a.train + " to the other shell";
      case "bankrupt": return "Declare bankruptcy";
      case "end_game": return "End the game now";
      case "special_buy": return "Buy " + (a.description || "special item") + (a.cost !== undefined ? " for " + a.cost : "");
      default: {
        const extra = Object.keys(a).filter((k) => !["type", "entity", "entity_type"].includes(k))
          .map((k) => k + " " + (typeof a[k] === "object" ? JSON.stringify(a[k]) : a[k])).join(", ");
        return a.type.replace(/_/g, " ") + (extra ? " (" + extra + ")" : "");
      }
    }
  }
  const GROUPS = { pass: "Pass", bid: "Bids", par: "Start a corporation", buy_shares: "Buy shares",
    sell_shares: "Sell shares", buy_company: "Buy a private", sell_company: "Sell a private", place_token: "Place a token", run_routes: "Run routes",
    dividend: "Dividend", buy_train: "Buy a train", lay_tile: "Lay a tile", choose: "Choose",
    choose_ability: "Use a private's ability", merge: "Merge", failed_merge: "Merger", remove_token: "Remove a token",
    discard_train: "Discard a train", scrap_train: "Scrap a train", swap_train: "Swap a train",
    bankrupt: "Bankruptcy", end_game: "End the game", special_buy: "Special purchase",
    reassign_trains: "Reassign trains" };

  function nameOf(pid) { return (pageData.names || {})[String(pid)] || ("player " + pid); }

  // ---------- posting ------------------------------------------------------------------------------
  function say(text, isError) {
    const box = $("turn-message");
    box.textContent = text;
    box.classList.toggle("error", !!isError);
  }

  async function post(action) {
    say("Sending…");
    document.querySelectorAll("#choices button, #hex-panel button").forEach((b) => { b.disabled = true; });
    const key = (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random());
    const r = await api("/games/" + gameId + "/actions?wait=8", {
      method: "POST", headers: { "Content-Type": "application/json", "Idempotency-Key": key },
      body: JSON.stringify({ action: action, expected_version: version }),
    });
    const d = r.data || {};
    if (r.status === 200 && d.status === "applied") { say("Done."); location.reload(); return; }
    if (r.status === 202 && d.status === "proposed") {
      say("Proposed: played once " + (d.proposal.waiting_for || []).map(nameOf).join(", ") + " accept" + (d.proposal.waiting_for.length > 1 ? "" : "s") + ".");
      setTimeout(() => location.reload(), 1500); return;
    }
    if (r.status === 202) { say("Accepted; waiting for the rules worker…"); setTimeout(() => location.reload(), 1500); return; }
    if (r.status === 409) { say("The game moved on before your move arrived; showing it now."); setTimeout(() => location.reload(), 1200); return; }
    say("Refused: " + (d.reason || d.message || d.error || ("HTTP " + r.status)), true);
    document.querySelectorAll("#choices button, #hex-panel button").forEach((b) => { b.disabled = false; });
  }

  function button(text, action, secondary) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    try { b.dataset.action = JSON.stringify(action()); } catch (e) { /* built when clicked */ }
    if (secondary) b.className = "secondary";
    b.addEventListener("click", () => post(action()));
    return b;
  }

  // ---------- map interaction (lay a tile, place a token) ------------------------------------------
  function hexNode(id) { return document.querySelector('svg.map g.hex[data-hex="' + CSS.escape(id) + '"]'); }

  // the auto-router's suggested routes, drawn over the map through the centres of the hexes they cross
  const ROUTE_COLORS = ["#d40000", "#0050d4", "#008a2e", "#8a00b8", "#d47000", "#00838f"];
  function hexCentre(id) {
    const g = hexNode(id);
    const m = g && /translate\(([-\d.]+),([-\d.]+)\)/.exec(g.getAttribute("transform") || "");
    return m ? [Number(m[1]), Number(m[2])] : null;
  }
  function showRoutes(action) {
    const svg = document.querySelector("svg.map");
    if (!svg) return;
    let layer = svg.querySelector("#route-overlay");
    if (!layer) {
      layer = document.createElementNS("http://www.w3.org/2000/svg", "g");
      layer.id = "route-overlay";
      layer.setAttribute("pointer-events", "none");
      svg.appendChild(layer);
    }
    layer.replaceChildren();
    (action.routes || []).forEach((route, i) => {
      (route.connections || []).forEach((chain) => {
        const pts = chain.map(hexCentre).filter(Boolean);
        if (pts.length < 2) return;
        const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
        line.setAttribute("points", pts.map((p) => p.join(",")).join(" "));
        line.setAttribute("fill", "none");
        line.setAttribute("stroke", ROUTE_COLORS[i % ROUTE_COLORS.length]);
        line.setAttribute("stroke-width", "9");
        line.setAttribute("stroke-opacity", "0.6");
        line.setAttribute("stroke-linecap", "round");
        line.setAttribute("class", "route");
        line.dataset.train = route.train;
        layer.appendChild(line);
      });
    });
  }

  // the hex being previewed and its own drawing, put back when the preview ends
  let previewed = null;
  function endPreview() {
    if (previewed) { previewed.g.replaceChildren(...previewed.children); previewed = null; }
  }
  // one hex drawn by the server with a tile laid at a rotation (the same drawing as the map's)
  async function drawnHex(hexId, tile, rotation) {
    const url = "/games/" + gameId + "/page/preview?hex=" + encodeURIComponent(hexId) + "&tile=" +
      encodeURIComponent(tile) + "&rotation=" + rotation;
    const r = await fetch(url, { headers: token ? { "Authorization": "Bearer " + token } : {} });
    if (!r.ok) return null;
    const doc = new DOMParser().parseFromString(await r.text(), "image/svg+xml");
    return doc.querySelector("g.hex");
  }

  async function preview(hexId, tile, rotation) {
    const g = hexNode(hexId);
    if (!g) return;
    const drawn = await drawnHex(hexId, tile, rotation);
    if (!drawn) return;
    if (!previewed || previewed.g !== g) { endPreview(); previewed = { g, children: [...g.childNodes] }; }
    g.replaceChildren(...[...drawn.childNodes].map((n) => document.importNode(n, true)));
    g.classList.add("previewing");
  }

  function openHex(hexId, layer) {
    endPreview();
    const panel = $("hex-panel");
    document.querySelectorAll("svg.map g.hex.selected").forEach((g) => g.classList.remove("selected"));
    const g = hexNode(hexId);
    if (g) g.classList.add("selected");
    // a corporation and a private of its (1828's D&H) may both lay here: one at a time, chosen by who lays
    const allLays = legal.filter((a) => a.type === "lay_tile" && a.hex === hexId);
    const layers = [...new Set(allLays.map((a) => String(a.entity)))];
    const by = layers.includes(String(layer)) ? String(layer) : layers[0];
    const lays = allLays.filter((a) => String(a.entity) === by);
    const tokens = legal.filter((a) => a.type === "place_token" && a.city && hexOfCity(a.city) === hexId);
    panel.replaceChildren();
    panel.hidden = false;
    const h = document.createElement("h3");
    h.textContent = "Hex " + hexId;
    panel.appendChild(h);
    if (layers.length > 1) {
      const who = document.createElement("select");
      who.id = "layer-select";
      layers.forEach((e) => who.add(new Option(e, e)));
      who.value = by;
      who.addEventListener("change", () => openHex(hexId, who.value));
      const l0 = document.createElement("label"); l0.textContent = "Lay as "; l0.appendChild(who);
      panel.appendChild(l0);
    }
    if (lays.length) {
      const tiles = [...new Set(lays.map((a) => a.tile))];
      const tileSel = document.createElement("select");
      tileSel.id = "tile-select";
      tiles.forEach((t) => tileSel.add(new Option("tile " + t, t)));
      const rotSel = document.createElement("select");
      rotSel.id = "rotation-select";
      const fillRot = () => {
        rotSel.replaceChildren();
        lays.filter((a) => a.tile === tileSel.value).forEach((a) => rotSel.add(new Option("rotation " + a.rotation, String(a.rotation))));
      };
      // every legal lay drawn on the hex, a button each: the picture is the choice (the selects stay for
      // keyboards and screen readers, and follow the pictures)
      const picker = document.createElement("div");
      picker.className = "lay-picker";
      picker.id = "lay-picker";
      const mark = () => picker.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed",
        String(b.dataset.tile === tileSel.value && b.dataset.rotation === rotSel.value)));
      const show = () => { mark(); preview(hexId, tileSel.value, rotSel.value); };
      tileSel.addEventListener("change", () => { fillRot(); show(); });
      rotSel.addEventListener("change", show);
      fillRot();
      show();
      lays.forEach(async (a) => {
        const b = document.createElement("button");
        b.type = "button"; b.className = "secondary lay-choice";
        b.dataset.tile = a.tile; b.dataset.rotation = String(a.rotation);
        b.setAttribute("aria-label", "tile " + a.tile + ", rotation " + a.rotation);
        b.addEventListener("click", () => { tileSel.value = a.tile; fillRot(); rotSel.value = String(a.rotation); show(); });
        picker.appendChild(b);
        const drawn = await drawnHex(hexId, a.tile, a.rotation);
        if (!drawn) { b.textContent = a.tile + " / " + a.rotation; return; }
        const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        svg.setAttribute("viewBox", "-52 -52 104 104");
        svg.setAttribute("width", "64"); svg.setAttribute("height", "64");
        const inner = document.importNode(drawn, true);
        inner.removeAttribute("transform"); inner.removeAttribute("tabindex");
        svg.appendChild(inner);
        const caption = document.createElement("span");
        caption.textContent = a.tile.split("-")[0] + " ↻" + a.rotation;
        b.append(svg, caption);
        mark();
      });
      const l1 = document.createElement("label"); l1.textContent = "Tile "; l1.appendChild(tileSel);
      const l2 = document.createElement("label"); l2.textContent = "Rotation "; l2.appendChild(rotSel);
      panel.append(picker, l1, l2);
      const lay = button("Lay tile", () => lays.find((a) => a.tile === tileSel.value && String(a.rotation) === rotSel.value));
      lay.id = "lay-tile";
      panel.appendChild(lay);
    }
    tokens.forEach((a) => panel.appendChild(button(label(a), () => a)));
    if (!lays.length && !tokens.length) {
      const p = document.createElement("p");
      p.textContent = "Nothing you can do on this hex now.";
      panel.appendChild(p);
    }
  }

  function hexOfCity(cityId) {
    const slot = document.querySelector('svg.map circle.slot[data-city="' + CSS.escape(cityId) + '"]');
    const g = slot && slot.closest("g.hex");
    return g ? g.dataset.hex : null;
  }

  function markHexes() {
    const ids = new Set();
    legal.forEach((a) => {
      if (a.type === "lay_tile") ids.add(a.hex);
      if (a.type === "place_token" && a.city) { const h = hexOfCity(a.city); if (h) ids.add(h); }
    });
    ids.forEach((id) => {
      const g = hexNode(id);
      if (!g) return;
      g.classList.add("can-act");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.addEventListener("click", () => openHex(id));
      g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); openHex(id); } });
    });
    return ids.size;
  }

  // ---------- the choices --------------------------------------------------------------------------
  function render() {
    const box = $("choices");
    box.replaceChildren();
    // one group per kind of move and per entity that makes it (a player's pass and his minor's pass are two
    // moves); tile lays and tokens share the map, so they are grouped by kind only
    const groups = {};
    const mapTypes = ["lay_tile", "place_token"];
    legal.forEach((a) => {
      const key = mapTypes.includes(a.type) ? a.type : a.type + "\u0000" + a.entity;
      (groups[key] = groups[key] || []).push(a);
    });
    Object.keys(groups).forEach((key) => {
      const list = groups[key];
      const type = list[0].type;
      const entity = list[0].entity;
      const fs = document.createElement("fieldset");
      fs.dataset.type = type;
      const lg = document.createElement("legend");
      lg.textContent = (GROUPS[type] || type.replace(/_/g, " ")) +
        (!mapTypes.includes(type) && me && entity !== me.player_id ? " — " + entity : "");
      if (!mapTypes.includes(type)) fs.dataset.entity = String(entity);
      fs.appendChild(lg);
      if (type === "lay_tile" || type === "place_token") {
        const n = new Set(list.map((a) => a.hex || a.city)).size;
        const p = document.createElement("p");
        p.textContent = "Click (or tab to) a highlighted hex on the map, or pick one here: " + n + " place(s) possible.";
        fs.appendChild(p);
        if (type === "lay_tile") {
          [...new Set(list.map((a) => a.hex))].forEach((hexId) => {
            const b = document.createElement("button");
            b.type = "button"; b.className = "secondary hex-choice"; b.dataset.hex = hexId;
            const g = hexNode(hexId);
            b.textContent = hexId + (g && g.dataset.location ? " " + g.dataset.location : "");
            b.addEventListener("click", () => { openHex(hexId); $("hex-panel").scrollIntoView({ block: "nearest" }); });
            fs.appendChild(b);
          });
        }
        if (type === "place_token") list.forEach((a) => fs.appendChild(button(label(a), () => a)));
      } else if (type === "par") {
        const byCorp = {};
        list.forEach((a) => { (byCorp[a.corporation] = byCorp[a.corporation] || []).push(a); });
        Object.keys(byCorp).forEach((corp) => {
          const wrap = document.createElement("div");
          const sel = document.createElement("select");
          sel.setAttribute("aria-label", "Start price of " + corp);
          byCorp[corp].forEach((a, i) => sel.add(new Option(String(a.share_price).split(",")[0], String(i))));
          const b = button("Start " + corp, () => byCorp[corp][Number(sel.value)]);
          b.dataset.corporation = corp;
          wrap.append(b, document.createTextNode(" at "), sel);
          fs.appendChild(wrap);
        });
      } else if (type === "buy_train") {
        // depot trains at their price; another corporation's train at any price the engine accepts between
        // the cheapest and the dearest point it offered (the seller's president agrees by being the buyer's)
        const byTrain = {};
        list.forEach((a) => {
          if (pageData.train_owners[a.train]) (byTrain[a.train] = byTrain[a.train] || []).push(a);
          else fs.appendChild(button(label(a), () => a));
        });
        Object.keys(byTrain).forEach((train) => {
          const offers = byTrain[train];
          const prices = offers.map((a) => Number(a.price));
          const first = offers[0];
          const wrap = document.createElement("div");
          const input = document.createElement("input");
          input.type = "number";
          input.min = String(first.min !== undefined ? first.min : Math.min(...prices));
          input.max = String(first.max !== undefined && first.max !== null ? first.max : Math.max(...prices));
          input.step = String(first.step || 1); input.value = String(prices[Math.min(1, prices.length - 1)]);
          input.setAttribute("aria-label", "Price for train " + train);
          const b = button("Buy train " + train + " from " + pageData.train_owners[train],
            () => Object.assign(bare(first), { price: Number(input.value) }));
          wrap.append(b, document.createTextNode(" for "), input, document.createTextNode(" (" + input.min + "–" + input.max + ")"));
          fs.appendChild(wrap);
        });
      } else if (type === "buy_company" && list.some((a) => a.min !== undefined)) {
        // a corporation buys a private at a price of its choosing within the range the offer states
        const byCompany = {};
        list.forEach((a) => { (byCompany[a.company] = byCompany[a.company] || []).push(a); });
        Object.keys(byCompany).forEach((company) => {
          const first = byCompany[company].find((a) => a.min !== undefined) || byCompany[company][0];
          if (first.min === undefined) { byCompany[company].forEach((a) => fs.appendChild(button(label(a), () => a))); return; }
          const wrap = document.createElement("div");
          const input = document.createElement("input");
          input.type = "number"; input.min = String(first.min); input.step = String(first.step || 1);
          if (first.max !== null && first.max !== undefined) input.max = String(first.max);
          input.value = String(first.price);
          input.setAttribute("aria-label", "Price for " + company);
          const b = button("Buy " + company, () => Object.assign(bare(first), { price: Number(input.value) }));
          b.dataset.company = company;
          wrap.append(b, document.createTextNode(" for "), input,
            document.createTextNode(" (" + first.min + (first.max !== null && first.max !== undefined ? "–" + first.max : " or more") + ")"));
          fs.appendChild(wrap);
        });
      } else if (type === "dividend" && list.some((a) => a.amount !== undefined)) {
        // a dividend of a chosen amount (1840): the amounts the engine offers, one list
        const wrap = document.createElement("div");
        const sel = document.createElement("select");
        sel.setAttribute("aria-label", "Dividend amount");
        list.forEach((a, i) => sel.add(new Option(String(a.amount), String(i))));
        sel.value = String(list.length - 1);
        wrap.append(button("Pay a dividend", () => list[Number(sel.value)]), document.createTextNode(" of "), sel);
        fs.appendChild(wrap);
      } else if (type === "run_routes") {
        list.forEach((a, i) => {
          const b = button(label(a), () => a);
          b.addEventListener("mouseenter", () => showRoutes(a));
          b.addEventListener("focus", () => showRoutes(a));
          fs.appendChild(b);
          if (i === 0) showRoutes(a);
        });
      } else if (type === "bid") {
        // one row per private (or company) auctioned: the API states each bid's min, step and max
        const byTarget = {};
        list.forEach((a) => { const t = a.company || a.corporation || a.minor; (byTarget[t] = byTarget[t] || []).push(a); });
        Object.keys(byTarget).forEach((target) => {
          const offers = byTarget[target];
          const first = offers[0];
          const low = first.min !== undefined ? first.min : Math.min(...offers.map((a) => Number(a.price)));
          // any amount from the minimum is legal unless the offer says every bid is a multiple of its step
          const step = first.multiple_of || 1;
          const high = first.max !== undefined && first.max !== null ? first.max : null;
          const wrap = document.createElement("div");
          const input = document.createElement("input");
          input.type = "number"; input.min = String(low); input.step = String(step); input.value = String(low);
          if (high !== null) input.max = String(high);
          input.setAttribute("aria-label", "Bid amount for " + target);
          const action = () => {
            const a = Object.assign({}, first, { price: Number(input.value) });
            ["min", "step", "max", "multiple_of"].forEach((k) => delete a[k]);
            return a;
          };
          wrap.append(button("Bid on " + target, action), document.createTextNode(" "), input,
            document.createTextNode(" (" + bidRange(first, low, high) + ")"));
          fs.appendChild(wrap);
        });
      } else {
        list.forEach((a) => fs.appendChild(button(label(a), () => a, type === "pass")));
      }
      box.appendChild(fs);
    });
    if (proposals.length) box.appendChild(proposalsFieldset());
    if (deadEnds.length) box.appendChild(deadEndsFieldset());
    if (me && me.player_id !== null) {
      const fs = document.createElement("fieldset");
      fs.dataset.type = "undo";
      const lg = document.createElement("legend"); lg.textContent = "Take back";
      fs.append(lg, button("Undo", () => ({ type: "undo", entity: me.player_id, entity_type: "player" }), true),
        button("Redo", () => ({ type: "redo", entity: me.player_id, entity_type: "player" }), true));
      box.appendChild(fs);
      box.appendChild(ordersFieldset(me.player_id));
      if (endGame) box.appendChild(endGameFieldset());
    }
  }

  // moves that take from another player's holding: the table's rules put them to him first, with the price
  function proposalsFieldset() {
    const fs = document.createElement("fieldset");
    fs.dataset.type = "proposals";
    const lg = document.createElement("legend"); lg.textContent = "Propose (played once the owner accepts)";
    fs.appendChild(lg);
    proposals.forEach((a) => {
      const move = Object.assign({}, a); delete move._needs;
      fs.appendChild(button("Propose: " + label(move) + " — asks " + a._needs.map(nameOf).join(", "), () => bare(move), true));
    });
    return fs;
  }

  // the game ends for everyone (18xx.games' "end game" by agreement): a button that asks again; where the
  // table votes on it, the button proposes it to the others
  function endGameFieldset() {
    const fs = document.createElement("fieldset");
    fs.dataset.type = "end-game";
    const lg = document.createElement("legend"); lg.textContent = "End the game";
    const note = document.createElement("p");
    const asks = endGame._needs || [];
    note.textContent = asks.length
      ? "Propose to end the game: it ends once " + asks.map(nameOf).join(", ") + " accept; the final values are counted as usual."
      : "When the table agrees to stop, any player ends the game here; the final values are counted as usual.";
    const ask = document.createElement("button");
    ask.type = "button"; ask.className = "secondary"; ask.textContent = "End the game for everyone…";
    ask.addEventListener("click", () => {
      const sure = button(asks.length ? "Yes, propose ending the game" : "Yes, end the game now", () => {
        const move = Object.assign({}, endGame); delete move._needs; return move; }, true);
      sure.dataset.confirm = "1";
      const keep = document.createElement("button");
      keep.type = "button"; keep.className = "secondary"; keep.textContent = "Keep playing";
      keep.addEventListener("click", () => { fs.replaceWith(endGameFieldset()); });
      ask.replaceWith(sure, keep);
    });
    fs.append(lg, note, ask);
    return fs;
  }

  // moves the rules allow but that lead where the game can only be taken back (a merger that cannot complete):
  // not buttons, so nobody strands a game by a click, but said with the reason, so a player knows why
  function deadEndsFieldset() {
    const fs = document.createElement("fieldset");
    fs.dataset.type = "dead-ends";
    const lg = document.createElement("legend");
    lg.textContent = "Not offered: the game could only be taken back from there";
    const ul = document.createElement("ul");
    deadEnds.forEach((a) => {
      const li = document.createElement("li");
      const move = Object.assign({}, a); delete move.reason;
      li.dataset.action = JSON.stringify(move);
      li.textContent = label(move) + (me && a.entity !== me.player_id ? " (" + a.entity + ")" : "") + ": " + a.reason;
      ul.appendChild(li);
    });
    fs.append(lg, ul);
    return fs;
  }

  // ---------- standing orders (docs/standing-orders.md) ---------------------------------------------
  // built from the program_* entries legal-actions offers, so the page offers all of them and nothing the
  // engine would refuse; the player's own order (from /page/me, his seat only) is said in words
  function ordersFieldset(pid) {
    const fs = document.createElement("fieldset");
    fs.dataset.type = "programs";
    const lg = document.createElement("legend"); lg.textContent = "Standing orders";
    fs.appendChild(lg);
    const now = document.createElement("p");
    now.id = "order-now";
    const mine = (me.programs || []);
    now.textContent = mine.length ? "Your standing order: " + mine.map((o) => o.words).join("; ") + "."
      : "You have no standing order. An order acts for you in stock rounds while you are away.";
    fs.appendChild(now);
    const mineOnly = (type) => orders.filter((a) => a.type === type && a.entity === pid);

    // pass orders: this stock round or every one; unless "even if something changes", the order hands the
    // decision back when another player sells, starts a corporation or buys into one you preside
    const passes = mineOnly("program_share_pass");
    if (passes.length) {
      const row = document.createElement("div"); row.className = "order-row"; row.id = "order-pass";
      const always = document.createElement("input"); always.type = "checkbox"; always.id = "pass-unconditional";
      const al = document.createElement("label"); al.className = "check";
      al.append(always, document.createTextNode(" even if something changes"));
      al.title = "Otherwise the order hands the decision back to you when another player sells, starts a corporation or buys into one you preside";
      const pick = (indefinite) => passes.find((a) => !!a.indefinite === indefinite && !!a.unconditional === always.checked);
      [[false, "Pass in this stock round"], [true, "Pass in every stock round"]].forEach(([indefinite, text]) => {
        if (!passes.some((a) => !!a.indefinite === indefinite)) return;
        const b = button(text, () => bare(pick(indefinite)), true);
        b.dataset.indefinite = String(indefinite);
        row.append(b, document.createTextNode(" "));
      });
      if (passes.some((a) => a.unconditional) && passes.some((a) => !a.unconditional)) row.append(al);
      else always.checked = !!passes[0].unconditional;
      fs.appendChild(row);
    }

    // buy orders: a corporation, IPO or market, until it floats or until the player holds N shares (the
    // range the offer states), then pass or not; one certificate a turn
    const buys = mineOnly("program_buy_shares");
    if (buys.length) {
      const row = document.createElement("div"); row.className = "order-row"; row.id = "order-buy";
      const corpSel = document.createElement("select"); corpSel.id = "buy-corporation";
      corpSel.setAttribute("aria-label", "Corporation to buy");
      const corpNames = pageData.corporation_names || {};
      [...new Set(buys.map((a) => a.corporation))].forEach((c) => corpSel.add(new Option(
        corpNames[c] && corpNames[c] !== c ? c + " — " + corpNames[c] : c, c)));
      const fromSel = document.createElement("select"); fromSel.id = "buy-from";
      fromSel.setAttribute("aria-label", "Buy from");
      const untilSel = document.createElement("select"); untilSel.id = "buy-until";
      untilSel.setAttribute("aria-label", "Until");
      const count = document.createElement("input"); count.type = "number"; count.id = "buy-count";
      count.setAttribute("aria-label", "Number of shares to hold");
      const limits = document.createElement("span"); limits.className = "muted"; limits.id = "buy-limits";
      const after = document.createElement("input"); after.type = "checkbox"; after.id = "buy-pass-after";
      const afterLabel = document.createElement("label"); afterLabel.className = "check";
      afterLabel.append(after, document.createTextNode(" then pass in this stock round"));
      const offered = () => buys.filter((a) => a.corporation === corpSel.value);
      const fill = () => {
        const was = fromSel.value;
        fromSel.replaceChildren();
        const froms = [...new Set(offered().map((a) => !!a.from_market))];
        froms.forEach((m) => fromSel.add(new Option(m ? "from the market" : "from the IPO", m ? "market" : "ipo")));
        if ([...fromSel.options].some((o) => o.value === was)) fromSel.value = was;
        const here = offered().filter((a) => !!a.from_market === (fromSel.value === "market"));
        const untilWas = untilSel.value;
        untilSel.replaceChildren();
        if (here.some((a) => a.until_condition === "float")) untilSel.add(new Option("until it floats", "float"));
        const ranged = here.find((a) => a.until_condition !== "float");
        if (ranged) untilSel.add(new Option("until I hold", "count"));
        if ([...untilSel.options].some((o) => o.value === untilWas)) untilSel.value = untilWas;
        const counting = untilSel.value === "count" && ranged;
        count.hidden = !counting; limits.hidden = !counting;
        if (ranged) {
          const low = ranged.min !== undefined ? ranged.min : ranged.until_condition;
          const high = ranged.max !== undefined && ranged.max !== null ? ranged.max : null;
          count.min = String(low); count.step = String(ranged.step || 1);
          if (high !== null) count.max = String(high); else count.removeAttribute("max");
          if (!count.value) count.value = String(Math.max(low, 2));
          limits.textContent = " shares (" + low + (high !== null ? "–" + high : " or more") + ")";
        }
        const afters = new Set(here.map((a) => !!a.auto_pass_after));
        after.disabled = afters.size < 2;
        if (afters.size === 1) after.checked = [...afters][0];
      };
      [corpSel, fromSel, untilSel].forEach((el) => el.addEventListener("change", fill));
      // the form starts from the buy order the player has, so changing it is changing what he sees
      const current = mine.map((o) => o.order).find((o) => o.type === "program_buy_shares");
      if (current && [...corpSel.options].some((o) => o.value === current.corporation)) {
        corpSel.value = current.corporation;
        fill();
        fromSel.value = current.from_market ? "market" : "ipo";
        fill();
        untilSel.value = current.until_condition === "float" ? "float" : "count";
        if (current.until_condition !== "float") count.value = String(current.until_condition);
        after.checked = !!current.auto_pass_after;
      }
      fill();
      const chosen = () => {
        const here = offered().filter((a) => !!a.from_market === (fromSel.value === "market")
          && !!a.auto_pass_after === after.checked);
        if (untilSel.value === "float") return bare(here.find((a) => a.until_condition === "float"));
        const entry = here.find((a) => a.until_condition !== "float");
        const n = Number(count.value);
        const low = entry.min !== undefined ? entry.min : entry.until_condition;
        const high = entry.max !== undefined ? entry.max : null;
        if (!Number.isInteger(n) || n < low || (high !== null && n > high) || (n - low) % (entry.step || 1) !== 0) {
          throw new Error("the number of shares must be a whole number from " + low + (high !== null ? " to " + high : ""));
        }
        return Object.assign(bare(entry), { until_condition: n });
      };
      const set = document.createElement("button");
      set.type = "button"; set.className = "secondary"; set.id = "set-buy-order"; set.textContent = "Set buy order";
      set.addEventListener("click", () => {
        let action;
        try { action = chosen(); } catch (err) { say("Not set: " + err.message, true); return; }
        post(action);
      });
      const words = document.createElement("span"); words.textContent = "Buy ";
      row.append(words, corpSel, document.createTextNode(" "), fromSel, document.createTextNode(" "), untilSel,
        document.createTextNode(" "), count, limits, document.createTextNode(" "), afterLabel,
        document.createTextNode(" "), set);
      fs.appendChild(row);
    }

    // clearing: offered while the player has an order
    mineOnly("program_disable").forEach((a) => {
      const b = button("Stop my standing order", () => bare(a), true);
      b.id = "stop-order";
      fs.appendChild(b);
    });
    return fs;
  }

  async function loadSeat(readOnly) {
    const who = await api("/games/" + gameId + "/page/me");
    if (who.status !== 200 && claimWaiting) {  // the table has not agreed yet (or declined: a new invitation is needed)
      token = null;
      $("you").hidden = false;
      $("you").textContent = "Your claim of a seat waits for the table's answer. This page becomes your seat once they agree.";
      const drop = document.createElement("button");
      drop.type = "button"; drop.className = "secondary"; drop.textContent = "Forget my claim on this device";
      drop.addEventListener("click", () => { try { localStorage.removeItem(claimKey); } catch (e) { /* ignore */ } location.reload(); });
      $("you").append(" ", drop);
      return;
    }
    if (who.status === 200 && claimWaiting) {  // accepted: the claim's token is now this device's seat
      try { localStorage.setItem(storeKey, token); localStorage.removeItem(claimKey); } catch (e) { /* ignore */ }
      claimWaiting = false;
    }
    if (who.status !== 200) {
      try { localStorage.removeItem(storeKey); } catch (e) { /* ignore */ }
      token = null;
      $("you").hidden = false;
      $("you").textContent = "That seat link is not valid for this game (" + ((who.data && who.data.message) || who.status) + ").";
      return;
    }
    me = who.data;
    const you = $("you");
    you.hidden = false;
    you.textContent = "You are " + me.name + ".";
    const forget = document.createElement("button");
    forget.type = "button"; forget.textContent = "Forget this seat on this device";
    forget.addEventListener("click", () => { try { localStorage.removeItem(storeKey); } catch (e) { /* ignore */ } location.reload(); });
    you.appendChild(forget);
    if (!readOnly && me.player_id !== null && status !== "open") { chatForm(); pushButton(); }
    if (status !== "active" || readOnly) return;
    const r = await api("/games/" + gameId + "/legal-actions");
    if (r.status !== 200) { you.append(" Could not load your moves: " + ((r.data && r.data.message) || r.status)); return; }
    if (r.data.version !== version) { location.reload(); return; }
    // standing orders are open to every player at any moment: they do not make it his turn (the page lists
    // the moves of the turn; setting and clearing orders is offered apart)
    const all = r.data.actions || [];
    legal = all.filter((a) => !String(a.type).startsWith("program_") && a.type !== "end_game");
    orders = all.filter((a) => String(a.type).startsWith("program_"));
    proposals = (r.data.proposals || []).map((a) => { const out = Object.assign({}, a); delete out.needs_consent; out._needs = a.needs_consent || []; return out; });
    endGame = all.find((a) => a.type === "end_game") || proposals.find((a) => a.type === "end_game") || null;
    proposals = proposals.filter((a) => a.type !== "end_game");
    deadEnds = r.data.dead_ends || [];
    const turn = $("turn");
    turn.hidden = false;
    // legal-actions lists the moves of every entity the player controls, some open off turn (a private sold
    // to the bank, 1840): it is his turn when the table waits for him
    const yours = (pageData.acting_players || []).includes(me.player_id);
    // the table chose this seat to move for an absent one (a substitute vote): its moves are offered here
    const standIn = pageData.stand_in && pageData.stand_in.by === me.player_id ? pageData.stand_in.absent : null;
    const forWhom = standIn === null ? "" : ": you move for " + ((pageData.names || {})[String(standIn)] || "player " + standIn);
    $("turn-title").textContent = yours ? "Your turn" + forWhom : legal.length ? "Not your turn: moves open to you now" : "Not your turn";
    body.dataset.yourTurn = yours ? "1" : "0";
    markHexes();
    render();
  }

  async function poll() {
    for (;;) {
      try {
        const r = await fetch("/games/" + gameId + "/page/version?after=" + version + "&status=" + status + "&wait=20",
          { headers: token ? { "Authorization": "Bearer " + token } : {} });
        if (r.ok) {
          const d = await r.json();
          if (d.version !== version || d.status !== status) { location.reload(); return; }
          if (d.status === "finished") return;
        } else {
          await new Promise((ok) => setTimeout(ok, 5000));
        }
      } catch (e) {
        await new Promise((ok) => setTimeout(ok, 5000));
      }
    }
  }

  // a game still waiting for players: take a seat from the page (public games), then start it
  function joinForm() {
    const form = $("join");
    if (!form) return;
    const full = form.dataset.full === "1";
    form.hidden = full || !!token;
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const r = await api("/games/" + gameId + "/join", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: $("join-name").value.trim() }) });
      const d = r.data || {};
      const link = $("seat-link");
      link.hidden = false;
      if (r.status !== 201) { link.textContent = "Could not take a seat: " + (d.message || r.status); return; }
      token = d.token;
      try { localStorage.setItem(storeKey, token); } catch (err) { /* ignore */ }
      const url = location.origin + "/games/" + gameId + "/page#seat=" + d.token;
      link.replaceChildren(document.createTextNode("You have seat " + d.seat + ". Keep your seat link, it is " +
        "the only way to play this seat from another device: "));
      const code = document.createElement("code"); code.id = "seat-url"; code.textContent = url;
      link.appendChild(code);
      form.hidden = true;
      startButton(true);
    });
    startButton(full && !!token);
  }

  function startButton(show) {
    const b = $("start");
    if (!b || !show) return;
    b.hidden = false;
    b.onclick = async () => {
      const r = await api("/games/" + gameId + "/start", { method: "POST" });
      if (r.status === 200) { location.reload(); return; }
      $("seat-link").hidden = false;
      $("seat-link").append(" Cannot start yet: " + ((r.data && r.data.message) || r.status));
    };
  }

  function signinForm() {
    const form = $("signin");
    if (!form) return;
    form.hidden = !!token;
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const value = $("seat-token").value.trim();
      if (!value) return;
      try { localStorage.setItem(storeKey, value); } catch (err) { /* ignore */ }
      location.reload();
    });
  }

  async function openPrivate() {
    // the shell of a private game: fetch the real page with the seat token and show it in place
    const message = $("shell-message");
    if (!token) return;
    message.textContent = "Opening…";
    const r = await fetch(location.pathname + location.search, { headers: { "Authorization": "Bearer " + token, "Accept": "text/html" } });
    if (r.status !== 200) {
      try { localStorage.removeItem(storeKey); } catch (e) { /* ignore */ }
      message.textContent = "That seat token does not open this game (HTTP " + r.status + ").";
      $("signin").hidden = false;
      return;
    }
    const html = await r.text();
    document.open();
    document.write(html);
    document.close();
  }

  // map zoom, for phones: the map scrolls inside its box at any width
  function zoomButtons() {
    const wrap = $("map");
    const svg = wrap && wrap.querySelector("svg.map");
    if (!svg) return;
    const widths = [640, 1000, 1600, 2400];
    let level = 0;
    const bar = document.createElement("div");
    bar.className = "zoom";
    const make = (text, step, name) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = text; b.setAttribute("aria-label", name);
      b.addEventListener("click", () => {
        level = Math.max(0, Math.min(widths.length - 1, level + step));
        svg.style.minWidth = widths[level] + "px";
      });
      return b;
    };
    bar.append(make("−", -1, "Zoom the map out"), make("+", 1, "Zoom the map in"));
    wrap.parentNode.insertBefore(bar, wrap);
  }

  // the clock (docs/time-controls.md): deadlines, who is away, an open vote, an undo request; a seated
  // player answers the votes and requests addressed to him from here
  const CHOICE_WORDS = { extend: "Give more time", substitute: "Let a player move for them this turn",
    open_seat: "Open the seat for someone else" };
  async function clockPanel() {
    const r = await api("/games/" + gameId + "/clock");
    if (r.status !== 200 || !r.data) return;
    const c = r.data;
    const body = $("clock-body");
    const who = nameOf;
    const when = (iso) => { try { return new Date(iso).toLocaleString(); } catch (e) { return iso; } };
    const lines = [];
    const line = (text, id) => { const p = document.createElement("p"); p.textContent = text; if (id) p.id = id; lines.push(p); return p; };
    const tc = c.time_control || {};
    const kind = tc.kind || "none";
    if (kind !== "none") {
      const rule = kind === "deadline" ? "a deadline of " + tc.per_move_hours + " h per move"
        : kind === "bank" ? "a time bank of " + tc.bank_hours + " h" + (tc.increment_hours ? " plus " + tc.increment_hours + " h a move" : "")
        : kind.replace(/_/g, " ");
      line("Time control: " + rule + (c.to_move != null ? " · " + who(c.to_move) + " to move" : "")
        + (c.deadline ? " · deadline " + when(c.deadline) : "") + (c.overdue ? " (overdue)" : ""), "clock-line");
    }
    Object.entries(c.away || {}).forEach(([pid, a]) => line(who(pid) + " is away until " + when(a.until)));
    const mine = me && me.player_id !== null ? me.player_id : null;
    const send = async (path, payload) => {
      const res = await api("/games/" + gameId + path, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(payload) });
      if (res.status >= 200 && res.status < 300) { location.reload(); return; }
      line("Not sent: " + ((res.data && res.data.message) || res.status));
      body.replaceChildren(...lines);
    };
    // the two answers a request, a proposal or a claim takes, as buttons after its line
    const answerButtons = (p, path) => {
      [["Accept", true], ["Decline", false]].forEach(([words, accept]) => {
        const b = document.createElement("button"); b.type = "button"; b.className = accept ? "" : "secondary";
        b.dataset.accept = String(accept); b.textContent = words;
        b.addEventListener("click", () => send(path, { accept: accept }));
        p.append(" ", b);
      });
    };
    // first, what waits for this seat's answer: the vote, a request, a claim (each answered below)
    const yours = [];
    if (mine !== null && c.vote && c.vote.voters.includes(mine) && !c.vote.voted.includes(mine)) yours.push("the vote on " + who(c.vote.absent) + "'s turn");
    const ur = c.undo_request;
    if (mine !== null && ur && ur.affected.includes(mine) && !ur.accepted.includes(mine)) yours.push(who(ur.requester) + "'s " + ur.kind + " request");
    const sc = c.seat_claim;
    if (mine !== null && sc && sc.affected.includes(mine) && !sc.accepted.includes(mine)) yours.push(sc.name + "'s claim of " + who(sc.player_id) + "'s seat");
    const pr = c.proposal;
    if (mine !== null && pr && pr.affected.includes(mine) && !pr.accepted.includes(mine)) yours.push(who(pr.by) + "'s proposal");
    if (yours.length) {
      const p = line("Waiting for your answer: " + yours.join("; ") + ".", "clock-pending");
      p.className = "notice";
    }
    if (c.vote) {
      const v = c.vote;
      const waitingVote = v.voters.filter((pid) => !v.voted.includes(pid));
      const p = line("Vote on " + who(v.absent) + "'s turn, whose time ran out (closes " + when(v.closes) + "): " + v.voted.length + " of "
        + v.voters.length + " have voted" + (waitingVote.length ? "; waiting for " + waitingVote.map(who).join(", ") : "") + ".", "clock-vote");
      if (mine !== null && v.voters.includes(mine) && !v.voted.includes(mine)) {
        Object.entries(CHOICE_WORDS).forEach(([choice, words]) => {
          const b = document.createElement("button"); b.type = "button"; b.className = "secondary";
          b.dataset.choice = choice; b.textContent = words;
          b.addEventListener("click", () => send("/clock/vote", { choice: choice }));
          p.append(" ", b);
        });
      }
    }
    const u = c.undo_request;
    if (u) {
      const waiting = u.affected.filter((pid) => !u.accepted.includes(pid));
      const what = u.kind === "redo" ? " the undone moves" : u.target == null ? " the last move" : u.target === 0 ? " every move back to the start" : " back to move " + u.target;
      const p = line(who(u.requester) + " asks to " + u.kind + what
        + "; waiting for " + (waiting.map(who).join(", ") || "nobody") + " (until " + when(u.closes) + ").", "clock-undo");
      if (mine !== null && waiting.includes(mine)) {
        answerButtons(p, "/undo-requests/answer");
      }
    }
    if (pr) {
      const waiting = pr.affected.filter((pid) => !pr.accepted.includes(pid));
      const what = pr.kind === "end_game" ? "to end the game now" : label(pr.action);
      const p = line(who(pr.by) + " proposes: " + what + "; waiting for " + (waiting.map(who).join(", ") || "nobody")
        + " (until " + when(pr.closes) + ").", "clock-proposal");
      if (mine !== null && waiting.includes(mine)) {
        answerButtons(p, "/proposals/answer");
      }
    }
    // open seats come as seat numbers (as GET /games/{id} numbers them); `seats` names their players
    const playerAt = {};
    (c.seats || []).forEach((s) => { playerAt[s.seat] = s.player_id; });
    const openPlayers = (c.open_seats || []).map((n) => playerAt[n]);
    (c.open_seats || []).forEach((seatNo) => {
      const pid = playerAt[seatNo];
      const p = line(who(pid) + "'s seat is open: any seated player may invite someone to take it over.");
      p.dataset.openSeat = String(seatNo);
      if (mine === null || mine === pid || openPlayers.includes(mine)) return;
      const b = document.createElement("button"); b.type = "button"; b.className = "secondary";
      b.dataset.offer = String(seatNo); b.textContent = "Invite someone to this seat";
      b.addEventListener("click", async () => {
        const res = await api("/games/" + gameId + "/seats/" + seatNo + "/offer", { method: "POST" });
        if (res.status !== 201) { p.append(" Not offered: " + ((res.data && res.data.message) || res.status)); return; }
        const code = document.createElement("code"); code.className = "claim-url";
        code.textContent = location.origin + "/games/" + gameId + "/page#claim=" + seatNo + ":" + res.data.invitation;
        const note = document.createElement("span");
        note.textContent = " Send this link to the newcomer (shown once; it opens the claim of the seat): ";
        b.replaceWith(note, code);
      });
      p.append(" ", b);
    });
    if (c.stand_in) line(who(c.stand_in.by) + " moves for " + who(c.stand_in.absent) + " this turn.");
    const claim = c.seat_claim;
    if (claim) {
      const waiting = claim.affected.filter((pid) => !claim.accepted.includes(pid));
      const p = line(claim.name + " asks to take over " + who(claim.player_id) + "'s seat; waiting for "
        + (waiting.map(who).join(", ") || "nobody") + " (taken over " + when(claim.closes) + " unless declined).", "clock-claim");
      if (mine !== null && waiting.includes(mine)) {
        answerButtons(p, "/seats/claim/answer");
      }
    }
    (c.resigned || []).forEach((r) => line(who(r.player_id) + " left the game at move " + r.at_version + "."));
    const first = pageData.first_names || {};
    (c.holders || []).forEach((h) => line(h.name + " took over " + (first[String(h.player_id)] || who(h.player_id))
      + "'s seat at move " + h.from_version + "."));
    if (!lines.length) return;
    body.replaceChildren(...lines);
    $("clock-section").hidden = false;
  }

  // web push: turn alerts on this device (opt-in here, revocable here; services/notifier/webpush.py)
  const pushKey = "railpost.push." + gameId;
  function b64ToBytes(text) {
    const raw = atob((text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }
  function pushButton() {
    const you = $("you");
    if (!you || !("serviceWorker" in navigator)) return;
    const b = document.createElement("button");
    b.type = "button"; b.id = "push-toggle"; b.className = "secondary";
    const status = document.createElement("span"); status.id = "push-status"; status.className = "muted";
    let device = null;
    try { device = localStorage.getItem(pushKey); } catch (e) { /* ignore */ }
    b.textContent = device ? "Turn off alerts on this device" : "Alerts on this device";
    b.addEventListener("click", async () => {
      try {
        const reg = await navigator.serviceWorker.register("/push-worker.js");
        if (device) {
          const sub = reg.pushManager && await reg.pushManager.getSubscription();
          if (sub) await sub.unsubscribe();
          await api("/notifier/webpush/devices/" + device, { method: "DELETE" });
          try { localStorage.removeItem(pushKey); } catch (e) { /* ignore */ }
          status.textContent = " Alerts are off on this device."; b.textContent = "Alerts on this device"; device = null;
          return;
        }
        const key = await api("/notifier/webpush/key");
        if (key.status !== 200) { status.textContent = " " + ((key.data && key.data.message) || "Web push is off on this server."); return; }
        if (!("PushManager" in window)) { status.textContent = " This browser cannot receive alerts."; return; }
        if (window.Notification && Notification.permission !== "granted" && (await Notification.requestPermission()) !== "granted") {
          status.textContent = " Alerts need your permission to show notifications."; return;
        }
        const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: b64ToBytes(key.data.public_key) });
        const saved = await api("/notifier/webpush/devices", { method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify(sub.toJSON()) });
        if (saved.status !== 201) { status.textContent = " Not saved: " + ((saved.data && saved.data.message) || saved.status); return; }
        device = String(saved.data.id);
        try { localStorage.setItem(pushKey, device); } catch (e) { /* ignore */ }
        status.textContent = " Alerts are on: your turns arrive on this device."; b.textContent = "Turn off alerts on this device";
      } catch (err) {
        status.textContent = " This browser could not turn alerts on (" + (err && err.message ? err.message : err) + ").";
      }
    });
    you.append(" ", b, status);
  }

  // table talk: a `message` action from this seat (stored with the game, never changes the state)
  function chatForm() {
    const form = $("chat");
    if (!form) return;
    form.hidden = false;
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = $("chat-text").value.trim();
      if (!text) return;
      // words do not depend on the position: if the game moved meanwhile, send them at the new version
      let at = version, r = null;
      for (let attempt = 0; attempt < 3; attempt++) {
        const key = (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random());
        r = await api("/games/" + gameId + "/actions?wait=8", {
          method: "POST", headers: { "Content-Type": "application/json", "Idempotency-Key": key },
          body: JSON.stringify({ action: { type: "message", entity: me.player_id, entity_type: "player", message: text },
            expected_version: at }),
        });
        if (r.status !== 409) break;
        const now = await api("/games/" + gameId + "/page/version");
        if (now.status !== 200) break;
        at = now.data.version;
      }
      if (r.status === 200 || r.status === 202) { location.reload(); return; }
      const d = r.data || {};
      form.append(" Not sent: " + (d.reason || d.message || r.status));
    });
  }

  // the history slider: moving it shows that version (without JavaScript the form's button does the same)
  function historySlider() {
    const slider = $("history-at");
    if (!slider) return;
    slider.addEventListener("input", () => { $("history-shown").textContent = slider.value + " / " + slider.max; });
    slider.addEventListener("change", () => { $("history").requestSubmit(); });
  }

  // the first full render is done: map, tables and acting line (server HTML), and for a seat its moves and the
  // clock panel; `make bench` (bench/bench_page.py) reads the mark, the browser tests wait for data-ready
  function rendered() {
    body.dataset.ready = "1";
    if (window.performance && performance.mark) performance.mark("railpost:rendered");
  }

  token = takeTokenFromFragment();
  claimForm();
  signinForm();
  joinForm();
  zoomButtons();
  historySlider();
  if (body.dataset.privateShell) { openPrivate(); return; }
  if (body.dataset.history !== undefined) {  // an earlier version: nothing to play, nothing to wait for
    if (token) loadSeat(true);
    rendered();
    return;
  }
  const ready = (token ? loadSeat() : Promise.resolve()).then(() => (status === "active" ? clockPanel() : null))
    .catch(() => null);
  ready.finally(() => {
    rendered();
    if (status === "active" || status === "open") poll();
  });
})();
