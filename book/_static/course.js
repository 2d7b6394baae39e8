// Small fixes that run on every page, in <head>, before the theme's deferred scripts.
(function () {
  // pydata-sphinx-theme takes the colour mode from localStorage; on a first visit there is none,
  // so it logged "Got invalid theme mode" to the console. Start from "auto" (follow the system).
  var root = document.documentElement;
  if (!root.dataset.mode) root.dataset.mode = "auto";
  // Opened from file:// (the site works without a server), the search page cannot fetch each
  // result's page for its snippet: the browser blocks it and Sphinx leaves the error uncaught.
  // List the results without snippets there.
  // (DOCUMENTATION_OPTIONS is a global const, not a property of window.)
  if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
    DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
  }
})();
// Every figure is a link to its full-size image: on a phone a figure is shrunk to the screen's width,
// and the reader opens it to zoom in. Added once the page is parsed (this file runs in <head>).
document.addEventListener("DOMContentLoaded", function () {
  var zh = (document.documentElement.lang || "").indexOf("zh") === 0;
  var title = zh ? "点击查看原尺寸图片" : "Open the full-size image";
  document.querySelectorAll(".bd-article figure img, .bd-article .cell_output img").forEach(function (img) {
    if (img.closest("a")) return;
    var link = document.createElement("a");
    link.href = img.getAttribute("src");
    link.className = "course-zoom";
    link.title = title;
    img.parentNode.insertBefore(link, img);
    link.appendChild(img);
  });
  // A table wider than its column scrolls inside its box: say so above it, and only then.
  var hint = zh ? "表格可以左右滑动 ⇆" : "This table scrolls sideways ⇆";
  function hints() {
    document.querySelectorAll(".bd-article .pst-scrollable-table-container").forEach(function (box) {
      var before = box.previousElementSibling;
      var has = before && before.classList.contains("course-scroll-hint");
      var wide = box.scrollWidth > box.clientWidth + 1;
      if (wide && !has) {
        var p = document.createElement("p");
        p.className = "course-scroll-hint";
        p.textContent = hint;
        box.parentNode.insertBefore(p, box);
      } else if (!wide && has) {
        before.remove();
      }
    });
  }
  hints();
  window.addEventListener("resize", hints);
});
// search.html: the theme focuses the first search field of the page, which is the hidden one of
// its Ctrl+K dialog; focus the page's own box instead (the one search box shown there).
document.addEventListener("DOMContentLoaded", function () {
  var own = document.querySelector(".bd-search-container form.bd-search input");
  if (own) {
    document.body.classList.add("course-search-page");   // course.css hides the other search buttons
    own.focus(); own.select();
  }
});
