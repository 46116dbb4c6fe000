// SPDX-License-Identifier: Apache-2.0
// The flame graph page's viewer (src/export/flamegraph.c embeds it at build time): decodes
// the data element and draws, zooms, searches and explains frames. Node kinds, their
// colours and descriptions come with the data (D.kinds, from src/profile/frame_kinds.c).
(function () {
'use strict';
var ROW = 18, TEXT_MIN = 24;
function $(id) { return document.getElementById(id); }
var D = JSON.parse($('fg-data').textContent);
/* What a node's kind number means: {name, about, colour: [hue, hue span, saturation,
 * lightness, lightness span]}. */
var K = D.kinds;
var names = D.names, raw = D.nodes, N = raw.length / 4;
var nm = new Int32Array(N), kind = new Uint8Array(N), val = new Float64Array(N);
var par = new Int32Array(N), dep = new Int32Array(N), end = new Int32Array(N);
var x = new Float64Array(N), hit = new Uint8Array(N);
var hues = new Float64Array(names.length).fill(-1);
var total = N ? raw[2] : 0, focus = 0, flip = false, queued = false;
var chart = $('chart'), tip = $('tip'), bar = $('status'), search = $('search');

/* Nodes come in preorder as [name, kind, samples, children]: a subtree is the
 * range [i, end[i]), and x[i] its offset in samples from the root's left edge. */
function decode() {
	var open = [], left = [], next = new Float64Array(N), i, p;
	for (i = 0; i < N; i++) {
		nm[i] = raw[4 * i]; kind[i] = raw[4 * i + 1]; val[i] = raw[4 * i + 2];
		p = open.length ? open[open.length - 1] : -1;
		par[i] = p;
		if (p >= 0) {
			x[i] = next[p]; next[p] += val[i]; dep[i] = dep[p] + 1;
			left[left.length - 1]--;
		}
		next[i] = x[i];
		open.push(i); left.push(raw[4 * i + 3]);
		while (open.length && left[left.length - 1] <= 0) {
			end[open.pop()] = i + 1;
			left.pop();
		}
	}
	while (open.length) end[open.pop()] = N;
}

function fmt(n) {
	var s = String(Math.round(n)), o = '';
	while (s.length > 3) { o = ',' + s.slice(-3) + o; s = s.slice(0, -3); }
	return s + o;
}
function pct(v, of) { return (of > 0 ? 100 * v / of : 0).toFixed(2) + '%'; }
var BYTES = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
function bytes(n) {
	var u = 0;
	while (n >= 1024 && u < BYTES.length - 1) { n /= 1024; u++; }
	return u ? n.toFixed(2) + ' ' + BYTES[u] : fmt(n) + (n === 1 ? ' byte' : ' bytes');
}
function dur(ns) {
	if (ns >= 60e9) return (ns / 60e9).toFixed(1) + ' min';
	if (ns >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
	if (ns >= 1e6) return (ns / 1e6).toFixed(1) + ' ms';
	return (ns / 1e3).toFixed(1) + ' \u00b5s';
}

/* A stable colour per name, in one hue family per kind (D.kinds[k].colour). */
function shade(s) {
	var h = 2166136261, i;
	for (i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
	return (h >>> 0) / 4294967296;
}
function hsl(c, h) {
	return 'hsl(' + (c[0] + c[1] * h) + ', ' + c[2] + '%, ' + (c[3] + c[4] * h) + '%)';
}
function color(i) {
	var j = nm[i], h = hues[j];
	if (h < 0) h = hues[j] = shade(names[j]);
	return hsl(K[kind[i]].colour, h);
}

function box(frag, i, l, w, cls) {
	var d = document.createElement('div');
	d.className = 'f ' + K[kind[i]].name + cls + (hit[i] ? ' hit' : '');
	d.style.cssText = 'left:' + l.toFixed(1) + 'px;width:' +
		Math.max(w - 1, 1).toFixed(1) + 'px;' + (flip ? 'bottom:' : 'top:') +
		dep[i] * ROW + 'px;background:' + color(i);
	d.dataset.i = i;
	if (w >= TEXT_MIN) {
		d.className += ' l';
		d.textContent = names[nm[i]];
	}
	frag.appendChild(d);
}

/* Ancestors of the zoomed frame span the full width; of the rest, only the zoomed
 * frame's subtree is drawn, skipping whole subtrees narrower than a pixel. */
function render() {
	var W = chart.clientWidth, frag = document.createDocumentFragment();
	var s = W / (val[focus] || 1), depth = dep[focus], i, a, w;
	for (a = par[focus]; a >= 0; a = par[a]) box(frag, a, 0, W, ' anc');
	for (i = focus; i < end[focus];) {
		w = val[i] * s;
		if (w < 1) { i = end[i]; continue; }
		box(frag, i, (x[i] - x[focus]) * s, w, '');
		if (dep[i] > depth) depth = dep[i];
		i++;
	}
	if (!total) {
		var p = document.createElement('div');
		p.id = 'empty'; p.textContent = 'No samples were recorded.';
		frag.appendChild(p);
	}
	chart.style.height = (depth + 1) * ROW + 'px';
	chart.replaceChildren(frag);
}
function schedule() {
	if (queued) return;
	queued = true;
	requestAnimationFrame(function () { queued = false; render(); });
}

function zoom(i) {
	focus = i;
	$('reset').disabled = i === 0;
	if (search.value)
		find(); /* its share of the zoomed frame changed */
	else
		render();
}

function selfOf(i) {
	var s = val[i], j;
	for (j = i + 1; j < end[i]; j = end[j]) s -= val[j];
	return s;
}
/* A node's number in the event's unit: samples, events, time off the CPU, bytes. */
function amount(v) {
	var u = D.unit || 'samples';
	if (u === 'nanoseconds') return dur(v);
	if (u === 'bytes') return bytes(v);
	return fmt(v) + ' ' + (v === 1 ? u.replace(/s$/, '') : u);
}
/* Node i's count beside its weight, when the data has one: " (1,234 objects)". */
function counted(i) {
	var n = D.counts ? D.counts[i] : -1;
	if (n < 0) return '';
	return ' (' + fmt(n) + ' ' + (n === 1 ? D.count_unit.replace(/s$/, '') : D.count_unit) + ')';
}
/* Two lines about frame i: its samples and shares, then its kind and self time. */
function describe(i) {
	var v = val[i], s = selfOf(i), t;
	t = amount(v) + counted(i) + ' \u00b7 ' + pct(v, total) + ' of all';
	if (focus && i > focus && i < end[focus])
		t += ' \u00b7 ' + pct(v, val[focus]) + ' of zoom';
	if (D.period_ns)
		t += ' \u00b7 ' + dur(v * D.period_ns) + ' CPU';
	return [t, K[kind[i]].about + ' \u00b7 self ' + amount(s) + ' (' + pct(s, total) +
		')'];
}

function frameAt(ev) {
	var t = ev.target.closest ? ev.target.closest('.f') : null;
	return t ? +t.dataset.i : -1;
}
function hover(ev) {
	var i = frameAt(ev), r, b, d, p, q, l, t;
	if (i < 0) { tip.hidden = true; return; }
	b = document.createElement('b');
	b.textContent = names[nm[i]];
	d = describe(i);
	p = document.createElement('div');
	p.textContent = d[0];
	q = document.createElement('div');
	q.textContent = d[1];
	tip.replaceChildren(b, p, q);
	bar.textContent = names[nm[i]] + ' \u2014 ' + d.join(' \u00b7 ');
	tip.hidden = false;
	r = tip.getBoundingClientRect();
	l = Math.min(ev.clientX + 14, innerWidth - r.width - 8);
	t = ev.clientY + 18;
	if (t + r.height > innerHeight)
		t = ev.clientY - r.height - 10;
	tip.style.left = Math.max(4, l) + 'px';
	tip.style.top = Math.max(4, t) + 'px';
}

/* Search marks every frame whose name matches; the reported share counts a matched
 * frame's subtree once, not again for matches nested below it. */
function share(from, to) {
	var sum = 0, i;
	for (i = from; i < to;) {
		if (hit[i]) { sum += val[i]; i = end[i]; } else i++;
	}
	return sum;
}
function find() {
	var q = search.value, re = null, ok, j, sum, t;
	search.classList.remove('bad');
	hit.fill(0);
	$('match').textContent = '';
	if (q && $('regex').checked) {
		try { re = new RegExp(q); } catch (e) {
			search.classList.add('bad');
			$('match').textContent = 'invalid regex';
			q = '';
		}
	}
	if (q) {
		ok = new Uint8Array(names.length);
		for (j = 0; j < names.length; j++)
			ok[j] = re ? re.test(names[j]) : names[j].indexOf(q) >= 0;
		for (j = 1; j < N; j++) hit[j] = ok[nm[j]];
		sum = share(1, N);
		t = 'Matched ' + pct(sum, total) + ' (' + amount(sum) + ' of ' + amount(total) + ')';
		if (focus) t += ', ' + pct(share(focus, end[focus]), val[focus]) + ' of zoom';
		$('match').textContent = t;
	}
	render();
}

function header() {
	var d, t = amount(total) + counted(0);
	if (D.period_ns)
		t += ' \u00b7 ' + dur(total * D.period_ns) + ' CPU at ' +
			Math.round(1e9 / D.period_ns) + ' Hz';
	if (D.duration_ns) t += ' \u00b7 ' + dur(D.duration_ns) + ' recorded';
	if (D.start_unix_ns) {
		d = new Date(D.start_unix_ns / 1e6).toISOString();
		t += ' \u00b7 started ' + d.slice(0, 10) + ' ' + d.slice(11, 19) + ' UTC';
	}
	$('title').textContent = D.title;
	$('summary').textContent = t;
}

/* The legend names the kinds this page has (not the root), each in its middle colour,
 * then the search highlight. */
function legend() {
	var seen = new Uint8Array(K.length), out = [], k, s;
	for (k = 1; k < N; k++) seen[kind[k]] = 1;
	for (k = 1; k < K.length; k++) {
		if (!seen[k]) continue;
		s = document.createElement('span');
		s.textContent = K[k].name;
		s.style.setProperty('--c', hsl(K[k].colour, 0.5));
		out.push(s);
	}
	s = document.createElement('span');
	s.textContent = 'match';
	s.style.setProperty('--c', 'hsl(295, 70%, 70%)');
	out.push(s);
	$('legend').replaceChildren.apply($('legend'), out);
}

function keys(ev) {
	if ((ev.ctrlKey || ev.metaKey) && ev.key === 'f') {
		ev.preventDefault();
		search.focus();
		search.select();
	} else if (ev.key === 'Escape') {
		if (document.activeElement === search && search.value) {
			search.value = '';
			find();
		} else {
			zoom(0);
		}
	}
}

decode();
header();
legend();
chart.addEventListener('click', function (ev) {
	var i = frameAt(ev);
	if (i >= 0)
		zoom(i);
});
chart.addEventListener('mousemove', hover);
chart.addEventListener('mouseleave', function () { tip.hidden = true; });
$('reset').addEventListener('click', function () { zoom(0); });
$('flip').addEventListener('click', function () {
	flip = !flip;
	this.setAttribute('aria-pressed', String(flip));
	this.textContent = flip ? 'Root at top' : 'Root at bottom';
	render();
	/* The root is where the eye goes: at the bottom of a tall graph, scroll to it. */
	scrollTo(0, flip ? document.documentElement.scrollHeight : 0);
});
search.addEventListener('input', find);
$('regex').addEventListener('change', find);
document.addEventListener('keydown', keys);
addEventListener('resize', schedule);
render();
})();
