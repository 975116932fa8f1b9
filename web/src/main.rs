//! The ctxlens visualizer. For now: the bundled demo assembled in the browser, with the
//! request's URL, headers, body and the character accounting.

mod demo;
mod shared;
mod views;

use ctxlens::stats::Stats;
use ctxlens::Assembly;
use yew::prelude::*;

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

#[derive(Properties, PartialEq)]
struct StatsProps {
    stats: Stats,
}

#[function_component(StatsView)]
fn stats_view(p: &StatsProps) -> Html {
    let s = &p.stats;
    let (sp, tl, hi) = s.shares();
    html! {
        <section class="stats">
            <h2>{"Where the characters go"}</h2>
            <div class="bar" role="img" aria-label="shares of the request">
                <span class="seg system" style={format!("width:{}", pct(sp))}></span>
                <span class="seg tools" style={format!("width:{}", pct(tl))}></span>
                <span class="seg history" style={format!("width:{}", pct(hi))}></span>
            </div>
            <dl class="totals">
                <div><dt>{"System prompt"}</dt><dd data-testid="stat-system-chars">{s.system_prompt_chars}</dd><dd class="share">{pct(sp)}</dd></div>
                <div><dt>{"Tools"}</dt><dd data-testid="stat-tools-chars">{s.tools_chars}</dd><dd class="share">{pct(tl)}</dd></div>
                <div><dt>{"History"}</dt><dd data-testid="stat-history-chars">{s.history_chars}</dd><dd class="share">{pct(hi)}</dd></div>
            </dl>
            <table class="tools-table">
                <thead><tr><th>{"Tool"}</th><th>{"chars"}</th></tr></thead>
                <tbody>
                { for s.by_tool.iter().map(|t| html! { <tr><td>{&t.name}</td><td>{t.chars}</td></tr> }) }
                </tbody>
            </table>
        </section>
    }
}

#[function_component(App)]
fn app() -> Html {
    let assembly: UseStateHandle<Assembly> = use_state(|| ctxlens::assemble(&demo::inputs()));
    let a = &*assembly;
    html! {
        <main>
            <header>
                <h1>{"ctxlens"}</h1>
                <p class="tagline">{"The exact request pi 0.85.1 sends, rebuilt offline in your browser."}</p>
            </header>
            <section class="diagnostics" data-testid="diagnostics">
                { for a.diagnostics.iter().map(|d| html! { <p class={classes!("diag", d.severity.as_str())}>{d.to_string()}</p> }) }
            </section>
            if let Some(s) = &a.stats { <StatsView stats={s.clone()} /> }
            <section class="trace">
                <h2>{"How it was built"}</h2>
                <ol>
                { for a.trace.stages.iter().map(|st| html! {
                    <li>
                        <strong>{st.id.title()}</strong>{" "}<code>{st.pi_source}</code>
                        <p>{&st.summary}</p>
                        <ul>{ for st.events.iter().map(|e| html! { <li class={e.kind.as_str()}>{format!("{}: {}", e.kind.as_str(), e.message)}</li> }) }</ul>
                    </li>
                }) }
                </ol>
            </section>
            if let Some(r) = &a.request {
                <section class="request">
                    <h2>{"Request"}</h2>
                    <p class="url" data-testid="request-url">{format!("{} {}", r.method, r.url)}</p>
                    <table class="headers">
                    { for r.headers.iter().map(|(k, v)| html! { <tr><th>{k}</th><td>{v}</td></tr> }) }
                    </table>
                    <pre class="body" data-testid="body-json">{&r.body}</pre>
                </section>
            }
        </main>
    }
}

fn main() {
    yew::Renderer::<App>::new().render();
}
