// feedpoller console: conveniences only. Every page works without this
// file; it makes filters apply on change and adds a copy button beside a
// secret shown once.
(function () {
  "use strict";
  document.querySelectorAll("form[data-autosubmit] select").forEach(function (sel) {
    sel.addEventListener("change", function () { sel.form.submit(); });
  });
  document.querySelectorAll("input[data-copy]").forEach(function (input) {
    if (!navigator.clipboard) { return; }
    var btn = document.createElement("button");
    btn.type = "button";
    btn.className = "secondary";
    btn.textContent = "Copy";
    btn.setAttribute("aria-label", "Copy to the clipboard");
    btn.addEventListener("click", function () {
      navigator.clipboard.writeText(input.value).then(function () {
        btn.textContent = "Copied";
      });
    });
    input.insertAdjacentElement("afterend", btn);
    input.addEventListener("focus", function () { input.select(); });
  });
})();
