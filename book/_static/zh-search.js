// Chinese search. At build time jieba cuts Chinese text into words for Sphinx's index, but
// the browser side does not cut the query, so "显存带宽" would match nothing (the index holds
// 显存 and 带宽). On search.html, hold back a query with Chinese in it, wait for the index, cut
// each run of Chinese into the longest words the index knows, then run the search. Sphinx keeps
// the words of headings apart from those of the body (titleterms, terms): a word that only a
// heading holds (中介层 in "硅中介层与 CoWoS") must still be found, so the query is cut against
// both. The build gives jieba the course's terms (book/zh/jieba-userdict.txt), so the index holds
// them whole.
(function () {
  if (!window.location.pathname.endsWith("search.html")) return;
  var params = new URLSearchParams(window.location.search);
  var original = params.get("q");
  if (!original || !/[\u4e00-\u9fff]/.test(original)) return;
  params.delete("q");   // Sphinx's Search.init finds no query and waits for us
  window.history.replaceState(null, "", window.location.pathname + "?" + params.toString());

  function known(index) {
    var words = {};
    [index.terms, index.titleterms].forEach(function (list) {
      Object.keys(list || {}).forEach(function (w) { words[w] = true; });
    });
    return words;
  }

  function cut(query, terms) {
    return query.replace(/[\u4e00-\u9fff]+/g, function (run) {
      var words = [], i = 0;
      while (i < run.length) {
        var n = Math.min(10, run.length - i);
        while (n > 1 && !terms.hasOwnProperty(run.substr(i, n))) n--;
        var word = run.substr(i, n);
        if (n > 1 || terms.hasOwnProperty(word)) words.push(word);
        i += n;
      }
      return " " + words.join(" ") + " ";
    }).replace(/\s+/g, " ").trim();
  }

  var loaded = document.readyState !== "loading";   // our listener runs before Sphinx's Search.init, in the same event
  document.addEventListener("DOMContentLoaded", function () { loaded = true; });

  var tries = 0;
  var timer = setInterval(function () {
    tries += 1;
    // wait for the index, and for Sphinx's own Search.init (run when the page has loaded): put back
    // before it, the query would be searched a second time, uncut, and the results shown twice
    if (typeof Search === "undefined" || !Search.hasIndex() || !loaded) {
      if (tries > 200) clearInterval(timer);   // give up after ~10 s
      return;
    }
    clearInterval(timer);
    params.set("q", original);
    window.history.replaceState(null, "", window.location.pathname + "?" + params.toString());
    document.querySelectorAll('input[name="q"]').forEach(function (el) { el.value = original; });
    Search.performSearch(cut(original, known(Search._index)) || original);
  }, 50);
})();
