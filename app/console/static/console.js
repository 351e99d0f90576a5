// Mnemo console: keyboard shortcuts, confirmations and the neighbourhood graph. No framework,
// no build step; every page works without this script (it only adds to them).
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";

  function typing(target) {
    return target && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable);
  }

  // "/" focuses the page's search box; "g" then a section's letter opens that section.
  var pendingG = false;
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || typing(ev.target)) { return; }
    if (ev.key === "/") {
      var box = document.querySelector("[data-search]");
      if (box) { ev.preventDefault(); box.focus(); box.select(); }
      return;
    }
    if (pendingG) {
      pendingG = false;
      var link = document.querySelector('nav a[data-key="' + ev.key + '"]');
      if (link) { ev.preventDefault(); link.click(); }
      return;
    }
    if (ev.key === "g") { pendingG = true; setTimeout(function () { pendingG = false; }, 1500); }
  });

  // Forms marked data-confirm ask first (deleting a document).
  document.addEventListener("submit", function (ev) {
    var msg = ev.target.getAttribute && ev.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { ev.preventDefault(); }
  });

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  // A small force layout: springs along edges, repulsion between nodes, the centre pinned.
  function layout(nodes, edges, w, h, steps) {
    var k = Math.sqrt((w * h) / Math.max(nodes.length, 1)) * 0.75;
    for (var s = 0; s < steps; s++) {
      var t = 0.1 * (1 - s / steps) * w;
      nodes.forEach(function (a) { a.dx = 0; a.dy = 0; });
      for (var i = 0; i < nodes.length; i++) {
        for (var j = i + 1; j < nodes.length; j++) {
          var a = nodes[i], b = nodes[j];
          var x = a.x - b.x, y = a.y - b.y, d = Math.max(Math.sqrt(x * x + y * y), 0.01);
          var f = (k * k) / d;
          a.dx += (x / d) * f; a.dy += (y / d) * f; b.dx -= (x / d) * f; b.dy -= (y / d) * f;
        }
      }
      edges.forEach(function (e) {
        var x = e.a.x - e.b.x, y = e.a.y - e.b.y, d = Math.max(Math.sqrt(x * x + y * y), 0.01);
        var f = (d * d) / k * (0.4 + Math.min(e.count, 10) / 20);
        e.a.dx -= (x / d) * f; e.a.dy -= (y / d) * f; e.b.dx += (x / d) * f; e.b.dy += (y / d) * f;
      });
      nodes.forEach(function (n) {
        if (n.fixed) { return; }
        var d = Math.max(Math.sqrt(n.dx * n.dx + n.dy * n.dy), 0.01);
        n.x += (n.dx / d) * Math.min(d, t); n.y += (n.dy / d) * Math.min(d, t);
        n.x = Math.min(w - 20, Math.max(20, n.x)); n.y = Math.min(h - 14, Math.max(14, n.y));
      });
    }
  }

  function drawGraph(box) {
    var source = document.getElementById(box.getAttribute("data-graph"));
    if (!source) { return; }
    var data = JSON.parse(source.textContent);
    var w = box.clientWidth || 500, h = box.clientHeight || 320;
    var centre = { id: data.centre.id, name: data.centre.name, count: 0, x: w / 2, y: h / 2, fixed: true, centre: true };
    var byId = {}; byId[centre.id] = centre;
    var nodes = [centre];
    data.nodes.forEach(function (n, i) {
      var angle = (2 * Math.PI * i) / Math.max(data.nodes.length, 1);
      var node = { id: n.id, name: n.name, count: n.count, x: w / 2 + Math.cos(angle) * w / 3, y: h / 2 + Math.sin(angle) * h / 3 };
      byId[n.id] = node; nodes.push(node);
    });
    var edges = data.nodes.map(function (n) { return { a: centre, b: byId[n.id], count: n.count }; });
    data.edges.forEach(function (e) {
      if (byId[e.source] && byId[e.target]) { edges.push({ a: byId[e.source], b: byId[e.target], count: e.count }); }
    });
    layout(nodes, edges, w, h, 250);
    var maxCount = Math.max.apply(null, nodes.map(function (n) { return n.count; }).concat([1]));
    var svg = el("svg", { viewBox: "0 0 " + w + " " + h, role: "group", "aria-label": "Neighbourhood graph" });
    var lines = edges.map(function (e) {
      return el("line", { "stroke-width": 1 + 3 * Math.min(e.count, maxCount) / maxCount }, svg);
    });
    var groups = nodes.map(function (n) {
      var link = el("a", { href: data.base + encodeURIComponent(n.id) }, svg);
      var title = el("title", {}, link); title.textContent = n.name + (n.centre ? "" : " — " + n.count + " shared facts");
      var r = n.centre ? 11 : 5 + 6 * Math.sqrt(n.count / maxCount);
      el("circle", { r: r, "class": n.centre ? "centre" : "" }, link);
      var label = el("text", { dx: r + 3, dy: 4 }, link); label.textContent = n.name;
      return link;
    });
    function paint() {
      edges.forEach(function (e, i) {
        lines[i].setAttribute("x1", e.a.x); lines[i].setAttribute("y1", e.a.y);
        lines[i].setAttribute("x2", e.b.x); lines[i].setAttribute("y2", e.b.y);
      });
      nodes.forEach(function (n, i) { groups[i].setAttribute("transform", "translate(" + n.x + "," + n.y + ")"); });
    }
    paint();
    // Drag a node to untangle the picture; a click without a drag follows the link.
    var dragging = null, moved = false;
    groups.forEach(function (g, i) {
      g.addEventListener("pointerdown", function (ev) { dragging = nodes[i]; moved = false; g.setPointerCapture(ev.pointerId); });
      g.addEventListener("pointermove", function (ev) {
        if (dragging !== nodes[i]) { return; }
        var rect = svg.getBoundingClientRect();
        dragging.x = (ev.clientX - rect.left) * (w / rect.width);
        dragging.y = (ev.clientY - rect.top) * (h / rect.height);
        moved = true; paint();
      });
      g.addEventListener("pointerup", function () { dragging = null; });
      g.addEventListener("click", function (ev) { if (moved) { ev.preventDefault(); moved = false; } });
    });
    box.appendChild(svg);
    box.removeAttribute("aria-hidden");
  }

  document.querySelectorAll("[data-graph]").forEach(drawGraph);
})();
