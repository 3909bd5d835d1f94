/**
 * The model page's side panels as tabs beside the view instead of one long column. Panels are added to the
 * sidebar by several parts of the page at different moments (the tree and materials once the view started, the
 * review cards after them, details and downloads with the model's record), so the tabs follow the sidebar's
 * children: each card joins the tab its class names, and only the chosen tab's cards are shown.
 */
import { h } from '../ui/dom.ts';

/** A tab: its label and the card classes it gathers (a card of none of them joins Details). */
interface TabSpec {
  label: string;
  cards: string[];
}

/** Parts and materials share a tab: binding picks parts in one and a material in the other. */
const TABS: readonly TabSpec[] = [
  { label: 'Parts', cards: ['parts-section', 'materials-section'] },
  { label: 'Annotations', cards: ['annotations-panel'] },
  { label: 'Views', cards: ['views-panel'] },
  { label: 'Versions', cards: ['versions-section'] },
  { label: 'Configurations', cards: ['configurations-section'] },
  { label: 'Details', cards: [] },
];
const FALLBACK_TAB = 'Details';

/** The tab a sidebar card belongs in, or null for what is no tab's (the part card, the tab list). */
function tabOf(card: Element): string | null {
  if (!card.classList.contains('card') || card.classList.contains('part-card')) return null;
  return TABS.find((tab) => tab.cards.some((name) => card.classList.contains(name)))?.label ?? FALLBACK_TAB;
}

/** The tabs over `sidebar`; `choose` shows one by its label. */
export interface SidebarTabs {
  /** The head (class `sidebar-head`) holding the tab list, to place above the sidebar, outside its scrolling. */
  element: HTMLElement;
  choose: (label: string) => void;
  dispose: () => void;
}

/** The event a card sends (bubbling) to have its tab shown, as when something it starts needs to be seen. */
export const REVEAL_CARD = 'reveal-card';

/** Where the tab chosen is kept while the page lives, so the page built afresh opens on it. */
export interface ChosenTab {
  label?: string;
}

/**
 * Puts a tab list at the top of `sidebar` and keeps its cards sorted into the tabs as they come. The tab chosen is
 * kept in `memory`, so the model page built afresh (a new version became current) opens on the tab the person was
 * working in; a new visit opens on Parts.
 */
export function mountSidebarTabs(sidebar: HTMLElement, memory: ChosenTab = {}): SidebarTabs {
  let chosen = memory.label ?? TABS[0]!.label;
  const buttons = new Map(
    TABS.map(({ label }) => [
      label,
      h(
        'button',
        { type: 'button', role: 'tab', 'aria-selected': 'false', hidden: true, onclick: () => choose(label) },
        label,
      ),
    ]),
  );
  const tabList = h(
    'div',
    { class: 'sidebar-tabs', role: 'tablist', 'aria-label': 'Panels' },
    ...buttons.values(),
  );
  // The head stays above the sidebar while its cards scroll.
  const element = h('div', { class: 'sidebar-head' }, tabList);

  const sort = (): void => {
    const cards = Array.from(sidebar.children).flatMap((card) => {
      const tab = tabOf(card);
      return tab === null ? [] : [{ card: card as HTMLElement, tab }];
    });
    const present = new Set(cards.map(({ tab }) => tab));
    // Until the chosen tab has cards (a model still converting has details only), the first that has some shows.
    const shown = present.has(chosen) ? chosen : TABS.find(({ label }) => present.has(label))?.label;
    for (const { card, tab } of cards) {
      card.dataset.tab = tab;
      card.setAttribute('role', 'tabpanel');
      card.classList.toggle('tab-hidden', tab !== shown);
    }
    for (const [label, button] of buttons) {
      button.hidden = !present.has(label);
      button.setAttribute('aria-selected', String(label === shown));
    }
    // The row scrolls sideways when the tabs do not fit: the one shown is kept in sight.
    const selected = shown === undefined ? undefined : buttons.get(shown);
    if (selected && !selected.hidden && tabList.scrollWidth > tabList.clientWidth)
      tabList.scrollLeft = Math.max(
        0,
        Math.min(tabList.scrollLeft, selected.offsetLeft - tabList.offsetLeft),
        selected.offsetLeft - tabList.offsetLeft + selected.offsetWidth - tabList.clientWidth,
      );
  };
  const choose = (label: string): void => {
    chosen = label;
    memory.label = label;
    sort();
    sidebar.scrollTop = 0;
  };

  const reveal = (event: Event): void => {
    const card = event.target instanceof Element ? event.target.closest('.card') : null;
    const tab = card ? tabOf(card) : null;
    if (tab !== null) choose(tab);
  };

  sidebar.classList.add('tabbed');
  sidebar.addEventListener(REVEAL_CARD, reveal);
  const observer = new MutationObserver(sort);
  observer.observe(sidebar, { childList: true });
  sort();
  return {
    element,
    choose,
    dispose: () => {
      observer.disconnect();
      sidebar.removeEventListener(REVEAL_CARD, reveal);
    },
  };
}
