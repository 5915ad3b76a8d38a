  // Shared by the three labs: causal_mha.labs.lab_html pastes this file over the include line inside each page's function.
  // The page defines `state` (its `step` runs 1..5) and `render()`, and calls `bindCommon()` after wiring its own inputs.
  var NUM = /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
  function LabError(field, message) { this.field = field; this.message = message; }
  var $ = function (id) { return document.getElementById(id); };
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
  function postHeight() {
    try { if (window.parent && window.parent !== window) window.parent.postMessage({cmhaLabHeight: document.documentElement.scrollHeight}, '*'); } catch (e) {}
  }
  // The step buttons, arrow-key scrolling of the table regions, and the height report when the window resizes.
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
  }
