// Chinese search. At build time jieba cuts Chinese text into words for Sphinx's index, but
// the browser side does not cut the query, so "显存带宽" would match nothing (the index holds
// 显存 and 带宽). On search.html, hold back a query with Chinese in it, wait for the index, cut
// each run of Chinese into the longest words the index knows, then run the search.
(function () {
  if (!window.location.pathname.endsWith("search.html")) return;
  var params = new URLSearchParams(window.location.search);
  var original = params.get("q");
  if (!original || !/[\u4e00-\u9fff]/.test(original)) return;
  params.delete("q");   // Sphinx's Search.init finds no query and waits for us
  window.history.replaceState(null, "", window.location.pathname + "?" + params.toString());

  function cut(query, terms) {
    return query.replace(/[\u4e00-\u9fff]+/g, function (run) {
      var words = [], i = 0;
      while (i < run.length) {
        var n = Math.min(8, run.length - i);
        while (n > 1 && !terms.hasOwnProperty(run.substr(i, n))) n--;
        var word = run.substr(i, n);
        if (n > 1 || terms.hasOwnProperty(word)) words.push(word);
        i += n;
      }
      return " " + words.join(" ") + " ";
    }).replace(/\s+/g, " ").trim();
  }

  var tries = 0;
  var timer = setInterval(function () {
    tries += 1;
    if (typeof Search === "undefined" || !Search.hasIndex()) {
      if (tries > 200) clearInterval(timer);   // give up after ~10 s
      return;
    }
    clearInterval(timer);
    params.set("q", original);
    window.history.replaceState(null, "", window.location.pathname + "?" + params.toString());
    document.querySelectorAll('input[name="q"]').forEach(function (el) { el.value = original; });
    Search.performSearch(cut(original, Search._index.terms) || original);
  }, 50);
})();
