// tmanager dashboard and event pages: applies the server's live updates and runs the clocks between them.
// No libraries: the server sends HTML fragments keyed by element id.
"use strict";

(() => {
  const body = document.body;
  let offset = Date.now() / 1000 - Number(body.dataset.now || Date.now() / 1000);
  const connection = document.getElementById("connection");

  function serverNow() {
    return Date.now() / 1000 - offset;
  }

  function fragment(html) {
    const template = document.createElement("template");
    template.innerHTML = html;
    return template.content.firstElementChild;
  }

  function placeGame(element) {
    const games = document.getElementById("games");
    const number = Number(element.id.slice(5));
    const after = Array.from(games.children).find((child) => Number(child.id.slice(5)) > number);
    games.insertBefore(element, after || null);
  }

  // Whether the server sends a section the page lacks (but a game's card, which comes and goes): the page's
  // layout is not the server's. A page that missed the update saying so (it reconnected after a round was
  // paired, or to a server started again) kept its old layout while it said "live", the sections it lacked lost.
  function layoutDiffers(message) {
    return Object.keys(message.set).some((key) => !key.startsWith("game-") && !document.getElementById(key));
  }

  function apply(message) {
    if (leaving) return;
    if (message.reload || layoutDiffers(message)) {
      location.reload();
      return;
    }
    offset = Date.now() / 1000 - message.now;
    for (const [key, html] of Object.entries(message.set)) {
      const element = fragment(html);
      const current = document.getElementById(key);
      if (current) {
        keepEdited(current, element);
        current.replaceWith(element);
      } else if (key.startsWith("game-")) {
        placeGame(element);
      }
    }
    for (const key of message.drop) {
      const gone = document.getElementById(key);
      if (gone) gone.remove();
    }
    if (message.full) {
      // The whole state names every game in progress: a card it leaves out ended while this page was behind.
      for (const card of document.querySelectorAll("#games > .game")) {
        if (!(card.id in message.set)) card.remove();
      }
    }
    body.dataset.version = message.v;
    tick();
  }

  // A form of the section being replaced that someone has begun to fill in (a result chosen, not yet saved) goes
  // into the new section in place of its fresh copy, if that copy sends what it sent (the same board, game and
  // result shown): another board's result, entered in another browser, reset the choice, and a Save then sent the
  // board's old value. A form the change is about (its board's result changed) is replaced: it is to be checked.
  function keepEdited(current, element) {
    for (const form of current.querySelectorAll("form")) {
      if (!edited(form)) continue;
      const key = form.id ? `form#${CSS.escape(form.id)}` : `form[action="${CSS.escape(form.getAttribute("action"))}"]`;
      const fresh = element.querySelectorAll(key);
      if (current.querySelectorAll(key).length === 1 && fresh.length === 1 && sent(fresh[0]) === sent(form)) {
        fresh[0].replaceWith(form);
      }
    }
  }

  function edited(form) {
    return Array.from(form.elements).some((field) => {
      if (field.tagName === "SELECT") return Array.from(field.options).some((o) => o.selected !== o.defaultSelected);
      if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
      return field.tagName === "INPUT" && field.type !== "hidden" && field.value !== field.defaultValue;
    });
  }

  function sent(form) {
    return Array.from(form.querySelectorAll("input[type=hidden]"), (field) => `${field.name}=${field.value}`).join("&");
  }

  function clockText(seconds) {
    seconds = Math.max(0, seconds);
    if (seconds < 20) {
      return `${Math.floor(seconds / 60)}:${(seconds % 60).toFixed(1).padStart(4, "0")}`;
    }
    const whole = Math.floor(seconds);
    const hours = Math.floor(whole / 3600);
    const minutes = Math.floor((whole % 3600) / 60);
    const secs = String(whole % 60).padStart(2, "0");
    return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${secs}` : `${minutes}:${secs}`;
  }

  function tick() {
    const now = serverNow();
    for (const clock of document.querySelectorAll(".clock[data-running='1']")) {
      const game = clock.closest(".game");
      const spent = now - Number(game.dataset.updated);
      clock.textContent = clockText(Number(clock.dataset.clock) - Math.max(0, spent));
    }
    for (const time of document.querySelectorAll("time[data-epoch]")) {
      const at = new Date(Number(time.dataset.epoch) * 1000);
      const left = Math.max(0, Number(time.dataset.epoch) - now);
      const clock = at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      time.textContent = `${clock} (in ${clockText(left).replace(/\.\d$/, "")})`;
    }
  }

  // A page whose form is being sent stays as it is: a reload now would cancel the sending (the arbiter's
  // action then done by the server, its confirmation shown to nobody), and a section replaced under a
  // form would lose what was chosen in it.
  let leaving = false;
  let source = null;
  document.addEventListener("submit", () => {
    leaving = true;
    if (source) source.close();
  });

  function connect() {
    // Event pages name their own stream (events?page=…); the dashboard has one.
    const stream = body.dataset.stream || "events";
    source = new EventSource(`${stream}${stream.includes("?") ? "&" : "?"}v=${body.dataset.version}`);
    source.onopen = () => {
      connection.textContent = "live";
      connection.className = "connection";
    };
    source.onmessage = (event) => apply(JSON.parse(event.data));
    source.onerror = () => {
      connection.textContent = "reconnecting…";
      connection.className = "connection lost";
    };
  }

  connect();
  tick();
  setInterval(tick, 200);
})();
