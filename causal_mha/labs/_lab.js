  // Shared by the three labs: causal_mha.chapter.labs.lab_html pastes this file over the include line inside each page's function.
  // The page defines `state` (its `step` runs 1..5) and `render()`, and calls `bindCommon()` after wiring its own inputs.
  // Right after this file comes `var DATA = {...}`: the page's examples, defaults and limits, written once in causal_mha.chapter.labs.
  var NUM = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
  function LabError(field, message) { this.field = field; this.message = message; }
  var $ = function (id) { return document.getElementById(id); };
  // The display of a number, as causal_mha.chapter.labs.fmt: fixed decimals, no negative zero, a masked score as −∞.
  function fmt(x, n) {
    if (x === -Infinity) return '\u2212\u221e';
    if (x === Infinity) return '\u221e';
    var s = x.toFixed(n);
    return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
  }
  function cell(tr, text, testid, value, cls) {
    var td = document.createElement('td'); td.textContent = text;
    if (testid) td.setAttribute('data-testid', testid);
    if (value !== undefined) td.setAttribute('data-value', String(value));
    if (cls) td.className = cls;
    tr.appendChild(td); return td;
  }
  function updateStepper() {
    $('step-count').textContent = state.step + ' / 5';
    $('prev').disabled = state.step <= 1; $('next').disabled = state.step >= 5;
    $('lab').setAttribute('data-step', String(state.step));
  }
  // The lab's one live region: it speaks when the result text changes, not on every keystroke that leaves it as it was.
  var announced = null;
  function announce(text) { if (text !== announced) { announced = text; $('announce').textContent = text; } }
  function announceErrors(errs) {
    announce('Invalid input: ' + errs.map(function (e) { return e.message; }).join('; ') + '. Nothing was computed.');
  }
  // The tracked row of a table is marked by more than colour: a ▶ before its label, an outline, and aria-current.
  function markTracked(tr, th, what) {
    tr.className = 'tracked'; tr.setAttribute('aria-current', 'true');
    var m = document.createElement('span'); m.className = 'marker'; m.setAttribute('aria-hidden', 'true'); m.textContent = '\u25b6 ';
    th.insertBefore(m, th.firstChild);
    var s = document.createElement('span'); s.className = 'sr-only'; s.textContent = ' (' + what + ')'; th.appendChild(s);
  }
  // "−100" for -100: the typographic minus of the pages' prose.
  function minus(x) { return String(x).replace('-', '\u2212'); }
  // The height of the content, not of the frame: the <html> box is as tall as what it holds (scrollHeight would be
  // at least the frame's own height, so a frame set to it plus its border would grow with every report).
  var lastHeight = 0;
  function postHeight() {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (h === lastHeight) return;
    lastHeight = h;
    try { if (window.parent && window.parent !== window) window.parent.postMessage({cmhaLabHeight: h}, '*'); } catch (e) {}
  }
  // The step buttons, arrow-key scrolling of the table regions, and the height report when the content's size changes.
  function bindCommon() {
    $('prev').addEventListener('click', function () { if (state.step > 1) { state.step--; render(); } });
    $('next').addEventListener('click', function () { if (state.step < 5) { state.step++; render(); } });
    Array.prototype.forEach.call(document.querySelectorAll('.scroll'), function (el) {
      el.addEventListener('keydown', function (e) {
        if (e.key === 'ArrowRight') { el.scrollLeft += 40; e.preventDefault(); }
        else if (e.key === 'ArrowLeft') { el.scrollLeft -= 40; e.preventDefault(); }
      });
    });
    window.addEventListener('resize', postHeight);
    if (window.ResizeObserver) new ResizeObserver(postHeight).observe(document.documentElement);   // any change of size
  }
