// MathJax (0.75 MB) only when the reader comes near some math. Sphinx adds this script, in place
// of MathJax's own, to the pages that have math (mathjax_path in _config.yml); it loads
// vendor/mathjax/startup.js when a formula comes within a screen and a half of the view, when
// the page is printed, or when something calls window.courseLoadMath() (the browser test does).
(function () {
  var here = document.currentScript.src.split("?")[0];
  var root = here.slice(0, here.lastIndexOf("/") + 1) + "vendor/mathjax";
  var started = false;
  function load() {
    if (started) return;
    started = true;
    var config = window.MathJax || (window.MathJax = {});
    config.loader = config.loader || {};
    config.loader.paths = Object.assign({}, config.loader.paths, {mathjax: root});
    var script = document.createElement("script");
    script.src = root + "/startup.js";
    script.async = true;
    document.head.appendChild(script);
  }
  window.courseLoadMath = load;
  window.addEventListener("beforeprint", load);
  var math = document.querySelectorAll(".math");
  if (!math.length) return;
  if (!("IntersectionObserver" in window)) { load(); return; }
  var watch = new IntersectionObserver(function (entries) {
    if (entries.some(function (e) { return e.isIntersecting; })) { watch.disconnect(); load(); }
  }, {rootMargin: "150% 0px"});
  math.forEach(function (el) { watch.observe(el); });
})();
