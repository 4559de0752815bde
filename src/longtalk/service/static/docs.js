// The API docs page: each operation of /openapi.json as a method, a path and its summary.
// Text only (textContent): nothing from the document is read as markup.
"use strict";

async function showOperations() {
  const target = document.getElementById("operations");
  const answer = await fetch("/openapi.json");
  const spec = await answer.json();
  target.textContent = "";
  for (const [path, operations] of Object.entries(spec.paths || {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const section = document.createElement("section");
      const title = document.createElement("h2");
      title.textContent = `${method.toUpperCase()} ${path}`;
      const summary = document.createElement("p");
      summary.textContent = operation.summary || "";
      const description = document.createElement("pre");
      description.textContent = operation.description || "";
      section.append(title, summary, description);
      target.append(section);
    }
  }
}

showOperations().catch((error) => {
  document.getElementById("operations").textContent = `Cannot read /openapi.json: ${error}`;
});
