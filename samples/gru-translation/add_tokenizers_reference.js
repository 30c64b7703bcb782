// Adds to reference.json the ids Hugging Face tokenizers (npm tokenizers 0.23.2, its Rust core)
// gives on source_tokenizer.json and target_tokenizer.json for each text, the "$A EOS" template
// applied: that these files, read by tokenizers' own code, do what the tutorial's normalizeString
// and word lists do (the script's "ids"), and the second reference for attnviz's reading of them.
// Run after train_gru_translation.py:
//   npm install --prefix /tmp/hfrefs tokenizers@0.23.2
//   NODE_PATH=/tmp/hfrefs/node_modules node samples/gru-translation/add_tokenizers_reference.js
const { Tokenizer } = require('tokenizers');
const fs = require('fs');
const path = require('path');
const file = path.join(__dirname, 'reference.json');
(async () => {
  const reference = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const side of ['source', 'target']) {
    const tokenizer = Tokenizer.fromFile(path.join(__dirname, `${side}_tokenizer.json`));
    for (const c of reference.texts[side]) {
      const e = await tokenizer.encode(c.text, null, { addSpecialTokens: true });
      c.tokenizers_ids = e.getIds();
    }
  }
  reference.tokenizers_reference = 'tokenizers@0.23.2';
  fs.writeFileSync(file, JSON.stringify(reference, null, 1) + '\n');
})();
