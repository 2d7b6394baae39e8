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
