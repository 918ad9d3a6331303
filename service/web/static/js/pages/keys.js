// This browser's key (/keys): its public half, a passphrase-encrypted backup to download, and
// importing a backup (a second device, or after clearing the browser's storage).

import { currentKey, ensureKey, exportBackup, importBackup, keptKeys, shortKey, useKeptKey } from "../keys.js";
import { busy, el, replaceChildren, showError, showStatus } from "../ui.js";
import { t } from "../words.js";

const $ = (id) => document.getElementById(id);
let lastUrl = null;

function showKey(key) {
  $("public-key").textContent = key ? key.publicKey : t("No key yet: one is made when you create or join a match.");
  $("public-key").dataset.publicKey = key ? key.publicKey : "";
  $("make-key").hidden = Boolean(key);
  $("export").disabled = !key;
}

async function showKept() {
  const kept = await keptKeys();
  $("kept").hidden = kept.length === 0;
  replaceChildren($("kept-keys"), kept.map((k) => {
    const button = el("button", { type: "button", class: "use-key", dataset: { publicKey: k.publicKey } },
      t("Use {key} again", { key: shortKey(k.publicKey) }));
    button.addEventListener("click", busy(button, async () => {
      const key = await useKeptKey(k.publicKey);
      showKey(key);
      await showKept();
      showStatus(t("This browser now uses the key {key} again.", { key: shortKey(key.publicKey) }));
    }));
    return el("li", {}, el("code", { class: "key" }, k.publicKey), " ", button);
  }));
}

async function exportKey() {
  showStatus(t("Encrypting the backup…"));
  const blob = await exportBackup($("export-passphrase").value);
  const key = await currentKey();
  if (lastUrl) URL.revokeObjectURL(lastUrl);
  lastUrl = URL.createObjectURL(blob);
  const link = $("backup-link");
  link.href = lastUrl;
  link.download = `portolan-key-${shortKey(key.publicKey)}.json`;
  $("export-done").hidden = false;
  link.click();
  $("export-passphrase").value = "";
  showStatus(t("Backup ready: keep the file and its passphrase apart."));
}

async function importKey() {
  const file = $("import-file").files[0];
  if (!file) throw new Error(t("Choose the backup file first."));
  showStatus(t("Decrypting the backup…"));
  const key = await importBackup(file, $("import-passphrase").value);
  $("import-passphrase").value = "";
  showKey(key);
  await showKept();
  showStatus(t("Imported: this browser now uses the key {key}.", { key: shortKey(key.publicKey) }));
}

async function main() {
  $("export-form").addEventListener("submit", busy($("export"), exportKey));
  $("import-form").addEventListener("submit", busy($("import"), importKey));
  $("make-key").addEventListener("click", busy($("make-key"), async () => showKey(await ensureKey())));
  try {
    showKey(await currentKey());
    await showKept();
  } catch (err) {
    showError(err);
  }
  document.body.dataset.ready = "true";
}

main();
