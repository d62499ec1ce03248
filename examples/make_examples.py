"""Regenerate the sample folder the README's first command indexes (``seams ingest examples/``).

    python examples/make_examples.py

Writes seven files next to this script, one per kind of document seams cuts differently:

    정책보고서_2026.pdf      Korean government-style report: 1. / □ / ○ / - markers, a ruled table,
                             running header and "- n -" page numbers on every page
    개인정보_보호_규정.pdf   Korean regulation: 제n장 / 제n조(제목) / ①② / 1. 2., cross-references
    sales_2025.xlsx          two sheets of 250-400 rows; one has a merged two-row header
    quarterly_review.pptx    7 slides: bullets with indent levels, a table, speaker notes
    employee_handbook.docx   Heading 1/2 styles, a bulleted list, a table with a header row
    README_project.md        Markdown headings, lists, a pipe table
    stations.csv             ~100 Seoul subway stations (real names, synthetic numbers)

Everything is invented (organisations, figures, people) and deterministic: fixed dates, seeded
random numbers and fixed zip timestamps, so re-running gives the same bytes. Korean PDFs embed the
Hangul font subset in ``tests/fixtures/fonts`` (SIL OFL), and the writers are the test fixtures' own
(``tests/fixtures/files.py``), so examples and tests exercise the same file shapes.
"""

from __future__ import annotations

import datetime as dt
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the writers live with the test fixtures

from fixtures.files import (  # noqa: E402 (needs the path above)
    Slide,
    make_csv,
    make_docx,
    make_md,
    make_pptx,
    make_report_pdf,
    make_xlsx,
)

# ------------------------------------------------------------------------------- 정책보고서_2026.pdf

REPORT_TITLE = "2026년 지역 디지털 전환 지원사업 추진계획(안)"
REPORT_ITEMS = [
    ("title", REPORT_TITLE),
    ("meta", "2026. 3.  한빛도 디지털산업정책과"),
    ("h1", "1. 개요"),
    ("h2", "□ 추진 배경"),
    ("p", "○ 생성형 인공지능과 클라우드 확산으로 제조·서비스 전반의 디지털 전환이 빨라지고 있으나, "
          "도내 중소기업의 전환 수준은 전국 평균에 미치지 못하고 있음"),
    ("sub", "- 2025년 도내 중소기업 디지털 전환 실태조사 결과, 전환 수준 지수는 100점 만점에 47.3점으로 "
            "전국 평균(58.1점)보다 10.8점 낮음"),
    ("sub", "- 특히 종사자 20인 미만 소기업의 클라우드 도입률은 12.4%에 그쳐 업무 자동화와 데이터 활용이 "
            "제한적임"),
    ("p", "○ 지역 내 디지털 전문 인력의 수도권 유출이 계속되면서, 기업이 스스로 전환을 추진할 역량을 "
          "확보하기 어려운 상황임"),
    ("sub", "- 최근 3년간 도내 정보통신 전공 졸업생의 68%가 수도권 기업에 취업"),
    ("p", "○ 이에 따라 지역 산업 구조와 기업 규모에 맞춘 단계별 지원 체계를 마련하고, 지원 이후에도 "
          "성과가 이어지도록 사후관리를 강화할 필요가 있음"),
    ("h2", "□ 추진 목적"),
    ("p", "○ 2028년까지 도내 중소기업 1,200개사의 디지털 전환을 지원하여 노동생산성을 20% 이상 향상"),
    ("p", "○ 지역 거점 중심의 상시 지원 체계를 구축하여 기업이 필요할 때 가까운 곳에서 진단·컨설팅·실증을 "
          "받을 수 있도록 함"),
    ("h2", "□ 추진 근거"),
    ("p", "○ 「한빛도 지역 디지털 전환 촉진 조례」 제5조(지원사업의 시행) 및 제9조(전문기관의 지정)"),
    ("p", "○ 「한빛도 제3차 산업진흥 기본계획(2024~2028)」 중 디지털 혁신 분야 과제"),
    ("h1", "2. 추진 현황 및 평가"),
    ("h2", "□ 그간 추진 실적('23~'25)"),
    ("p", "○ 최근 3년간 총 1,245개사를 지원하였으며, 예산과 지원 규모는 매년 꾸준히 확대되었음"),
    ("table", [
        ["구분", "2023년", "2024년", "2025년", "합계"],
        ["지원 기업 수(개사)", "310", "420", "515", "1,245"],
        ["예산(억원)", "85", "112", "138", "335"],
        ["컨설팅(건)", "240", "355", "461", "1,056"],
        ["만족도(점)", "81.2", "84.7", "86.3", "-"],
    ]),
    ("note", "※ 2025년 실적은 12월 말 잠정치이며, 만족도는 사업 종료 후 설문(5점 척도)을 100점으로 환산한 값임"),
    ("p", "○ 지원 기업의 평균 매출액은 지원 전보다 11.6% 증가하였고, 불량률은 평균 23% 감소하는 등 "
          "가시적인 성과가 나타남"),
    ("sub", "- 식품 가공 분야 A사는 생산 관리 시스템 도입 후 재고 회전일을 41일에서 26일로 단축"),
    ("sub", "- 부품 제조 분야 B사는 설비 데이터 수집 체계를 갖춘 뒤 설비 가동률이 72%에서 85%로 향상"),
    ("h2", "□ 문제점 및 개선 필요사항"),
    ("p", "○ (성과 지속성) 컨설팅 이후 실제 시스템 도입과 후속 투자로 이어지는 비율이 35% 수준에 그쳐 "
          "성과 확산이 제한적임"),
    ("sub", "- 지원 종료 후 1년 이내에 시스템 이용을 중단한 기업이 전체의 18%에 달함"),
    ("p", "○ (지역 편중) 지원 기업의 62%가 도청 소재지와 산업단지 인근 2개 시에 집중되어 있어 군 지역 "
          "기업의 참여가 저조함"),
    ("p", "○ (인력 부족) 전환 이후 시스템을 운영할 사내 인력이 부족하여 외부 업체에 대한 의존도가 높음"),
    ("sub", "- 기업당 디지털 담당 인력은 평균 0.7명이며, 전담 인력이 없는 기업이 54%임"),
    ("p", "○ (절차 부담) 신청 서류가 많고 선정까지 평균 47일이 걸려 적기 지원이 어렵다는 의견이 "
          "반복적으로 제기됨"),
    ("h1", "3. 2026년 추진 계획"),
    ("h2", "□ 기본 방향"),
    ("p", "○ 단발성 컨설팅 중심에서 '진단 → 도입 → 정착'으로 이어지는 단계별 연속 지원 체계로 전환"),
    ("p", "○ 거점 센터와 찾아가는 지원을 병행하여 군 지역 기업의 접근성을 높이고, 신청 절차를 간소화"),
    ("h2", "□ 세부 추진 과제"),
    ("p", "○ (과제1) 지역 거점 디지털 혁신센터 확충"),
    ("sub", "- 현재 5개소인 혁신센터를 8개소로 늘리고, 신규 센터는 군 지역 농공단지 3곳에 우선 설치"),
    ("sub", "- 센터별 전담 컨설턴트 10명 내외를 배치하고, 업종별 전문위원 120명 풀을 구성·운영"),
    ("p", "○ (과제2) 단계별 맞춤형 지원"),
    ("sub", "- (진단) 무료 디지털 수준 진단을 연 600개사에 제공하고, 결과에 따라 기초·고도화 트랙을 배정"),
    ("sub", "- (도입) 기초 트랙은 클라우드 업무 도구 도입비의 70%(최대 2천만원), 고도화 트랙은 데이터 "
            "수집·분석 시스템 구축비의 50%(최대 1억원)를 지원"),
    ("sub", "- (정착) 도입 후 6개월·12개월 시점에 이용 현황을 점검하고, 이용률이 낮은 기업에는 재교육과 "
            "현장 코칭을 제공"),
    ("p", "○ (과제3) 기업 내 디지털 인력 양성"),
    ("sub", "- 재직자 대상 '디지털 실무자 과정'을 연 4회 운영하고, 수료자가 있는 기업에 평가 가점 부여"),
    ("sub", "- 지역 대학과 협력하여 현장실습 학기제를 운영하고, 참여 학생 120명을 지원 기업에 배치"),
    ("p", "○ (과제4) 신청·선정 절차 간소화"),
    ("sub", "- 온라인 신청 시스템을 개편하여 제출 서류를 9종에서 4종으로 줄이고, 선정 기간을 30일 이내로 단축"),
    ("sub", "- 상시 접수 방식을 도입하여 분기별로 선정하되, 긴급한 수요는 수시 심사로 처리"),
    ("h2", "□ 성과 관리"),
    ("p", "○ 과제별 성과지표를 설정하고 분기마다 점검하여, 부진한 과제는 하반기 예산 배분에 반영"),
    ("sub", "- 지원 기업 수: 2025년 515개사 → 2026년 600개사"),
    ("sub", "- 후속 투자 전환율: 35% → 45% (컨설팅 완료 후 12개월 이내 자체 예산으로 도입한 기업 비율)"),
    ("sub", "- 군 지역 기업 비중: 38% → 50%, 1년 후 시스템 이용 유지율: 82% → 90%"),
    ("h1", "4. 재원 및 추진 일정"),
    ("h2", "□ 소요 예산"),
    ("p", "○ 총 사업비 162억원(도비 97억원, 시·군비 40억원, 민간 부담 25억원)"),
    ("sub", "- 혁신센터 확충 및 운영 54억원, 단계별 맞춤형 지원 81억원, 인력 양성 19억원, 시스템 개편 등 8억원"),
    ("p", "○ 국비 공모사업과 연계하여 추가 재원을 확보하고, 집행 실적이 부진한 과제의 예산은 하반기에 조정"),
    ("h2", "□ 추진 일정"),
    ("p", "○ (3월) 사업 공고 및 권역별 설명회 개최(4회)"),
    ("p", "○ (4월~5월) 디지털 수준 진단 실시, 1차 선정 평가 및 협약 체결"),
    ("p", "○ (6월~11월) 도입 지원 및 현장 코칭, 분기별 추가 선정"),
    ("p", "○ (12월) 성과 점검 및 2027년 사업계획 수립"),
    ("h1", "5. 기대 효과 및 향후 조치"),
    ("h2", "□ 기대 효과"),
    ("p", "○ (경제적 효과) 지원 기업의 생산성 향상과 비용 절감으로 연간 약 480억원의 부가가치 창출 기대"),
    ("p", "○ (고용 효과) 디지털 실무 인력 600명 양성으로 지역 내 양질의 일자리 확대"),
    ("p", "○ (정책적 효과) 군 지역 기업의 참여 확대로 도내 지역 간 디지털 격차 완화, 단계별 지원 모델을 "
          "다른 시·도와 중앙부처 사업으로 확산"),
    ("h2", "□ 향후 조치 사항"),
    ("p", "○ 관계 부서 협의(3월 2주) 및 도의회 상임위원회 보고(3월 4주)"),
    ("p", "○ 시·군 담당자 회의를 거쳐 사업 공고문을 확정하고 3월 말 공고"),
    ("note", "※ 문의: 디지털산업정책과 디지털혁신팀(내선 2417)"),
    ("pagebreak", ""),
    ("h1", "붙임 1. 권역별 디지털 혁신센터 운영 계획"),
    ("h2", "□ 기존 센터(5개소)"),
    ("p", "○ 한빛시 센터(2021년 개소): 제조 공정 데이터 분석 특화, 전담 인력 14명"),
    ("p", "○ 남원시 센터(2022년 개소): 기계·금속 부품 기업의 설비 데이터 수집 및 예지 정비 실증"),
    ("p", "○ 동해시 센터(2022년 개소): 수산물 가공·물류 기업의 재고 관리와 이력 추적 지원"),
    ("p", "○ 청림시 센터(2023년 개소): 소상공인·서비스업 대상 클라우드 업무 도구 도입 상담"),
    ("p", "○ 서해시 센터(2024년 개소): 화학·소재 기업의 품질 데이터 관리 및 공정 최적화"),
    ("h2", "□ 신규 센터(3개소, 2026년 하반기 개소)"),
    ("p", "○ 서림군 농공단지 센터: 식품 가공 및 농산물 유통 기업의 디지털 전환 지원"),
    ("sub", "- 기존 농공단지 관리사무소 2층을 리모델링하여 활용(공사비 6억원)"),
    ("p", "○ 북산군 농공단지 센터: 목재·가구 제조 기업의 설계·생산 데이터 연계"),
    ("p", "○ 은하군 농공단지 센터: 친환경 소재 기업 대상 실증 장비 공동 활용"),
    ("sub", "- 신규 센터는 개소 후 1년간 기존 센터와 짝을 이루어 컨설턴트를 공동 운영"),
    ("h1", "붙임 2. 자주 묻는 질문"),
    ("p", "○ (질문) 다른 정부 지원사업에 참여 중인 기업도 신청할 수 있는지?"),
    ("sub", "- (답변) 같은 내용의 시스템 구축이 아니라면 신청할 수 있으며, 중복 지원 여부는 선정 평가에서 확인함"),
    ("p", "○ (질문) 기초 트랙을 마친 기업이 다음 해에 고도화 트랙을 신청할 수 있는지?"),
    ("sub", "- (답변) 신청할 수 있으며, 기초 트랙의 1년 후 이용 유지율이 80% 이상이면 평가에서 가점을 받음"),
    ("p", "○ (질문) 민간 부담금은 현물로 낼 수 있는지?"),
    ("sub", "- (답변) 민간 부담금의 30% 이내에서 인건비 등 현물 부담을 인정함"),
]

# ---------------------------------------------------------------------------- 개인정보_보호_규정.pdf

REGULATION_TITLE = "한빛지역정보진흥원 개인정보 보호 규정"
REGULATION_ITEMS = [
    ("title", "개인정보 보호 규정"),
    ("meta", "제정 2023. 4. 1.  일부개정 2025. 12. 15.  규정 제2025-14호"),
    ("chapter", "제1장 총칙"),
    ("article", "제1조(목적) 이 규정은 「개인정보 보호법」 및 같은 법 시행령에 따라 한빛지역정보진흥원(이하 "
                "\"진흥원\"이라 한다)이 업무를 수행하면서 처리하는 개인정보를 보호하고, 정보주체의 권리를 "
                "보장하는 데 필요한 사항을 정함을 목적으로 한다."),
    ("article", "제2조(정의) 이 규정에서 사용하는 용어의 뜻은 다음과 같다."),
    ("item", "1. \"개인정보\"란 살아 있는 개인에 관한 정보로서 성명, 주민등록번호 및 영상 등을 통하여 개인을 "
             "알아볼 수 있는 정보를 말한다."),
    ("item", "2. \"처리\"란 개인정보의 수집, 생성, 연계, 기록, 저장, 보유, 가공, 편집, 검색, 출력, 정정, "
             "복구, 이용, 제공, 공개, 파기, 그 밖에 이와 유사한 행위를 말한다."),
    ("item", "3. \"정보주체\"란 처리되는 정보에 의하여 알아볼 수 있는 사람으로서 그 정보의 주체가 되는 "
             "사람을 말한다."),
    ("item", "4. \"개인정보취급자\"란 진흥원의 지휘·감독을 받아 개인정보를 처리하는 임직원, 파견근로자 및 "
             "시간제근로자를 말한다."),
    ("item", "5. \"가명처리\"란 개인정보의 일부를 삭제하거나 대체하는 등의 방법으로 추가 정보 없이는 특정 "
             "개인을 알아볼 수 없도록 처리하는 것을 말한다."),
    ("article", "제3조(적용 범위) ① 이 규정은 진흥원의 모든 부서와 임직원, 그리고 진흥원으로부터 개인정보 "
                "처리 업무를 위탁받은 자에게 적용한다."),
    ("clause", "② 개인정보의 처리에 관하여 다른 규정에 특별한 규정이 있는 경우를 제외하고는 이 규정에서 "
               "정하는 바에 따른다."),
    ("article", "제4조(개인정보 보호책임자) ① 원장은 개인정보 처리에 관한 업무를 총괄하여 책임지는 개인정보 "
                "보호책임자(이하 \"보호책임자\"라 한다)를 지정하여야 한다."),
    ("clause", "② 보호책임자는 다음 각 호의 업무를 수행한다."),
    ("item", "1. 개인정보 보호 계획의 수립 및 시행"),
    ("item", "2. 개인정보 처리 실태 및 관행의 정기적인 조사 및 개선"),
    ("item", "3. 개인정보 처리와 관련한 불만의 처리 및 피해 구제"),
    ("item", "4. 제12조에 따른 교육 계획의 수립 및 시행"),
    ("clause", "③ 보호책임자가 제1항에 따라 지정된 때에는 30일 이내에 그 사실을 진흥원 누리집에 공개하여야 한다."),
    ("chapter", "제2장 개인정보의 처리"),
    ("article", "제5조(개인정보의 수집·이용) ① 진흥원은 다음 각 호의 어느 하나에 해당하는 경우에만 개인정보를 "
                "수집할 수 있으며, 그 수집 목적의 범위에서 이용할 수 있다."),
    ("item", "1. 정보주체의 동의를 받은 경우"),
    ("item", "2. 법률에 특별한 규정이 있거나 법령상 의무를 준수하기 위하여 불가피한 경우"),
    ("item", "3. 정보주체와 체결한 계약을 이행하기 위하여 필요한 경우"),
    ("clause", "② 진흥원은 제1항제1호에 따라 동의를 받을 때에는 다음 각 호의 사항을 정보주체에게 알려야 한다."),
    ("item", "1. 개인정보의 수집·이용 목적"),
    ("item", "2. 수집하려는 개인정보의 항목"),
    ("item", "3. 개인정보의 보유 및 이용 기간"),
    ("item", "4. 동의를 거부할 권리가 있다는 사실 및 동의 거부에 따른 불이익이 있는 경우에는 그 불이익의 내용"),
    ("clause", "③ 진흥원은 목적에 필요한 최소한의 개인정보만을 수집하여야 하며, 최소한의 정보 외의 개인정보 "
               "수집에 동의하지 아니한다는 이유로 서비스 제공을 거부해서는 아니 된다."),
    ("article", "제6조(개인정보의 제3자 제공) ① 진흥원은 제5조제1항 각 호의 어느 하나에 해당하는 경우로서 "
                "제5조제1항에 따른 수집 목적의 범위에서 개인정보를 제3자에게 제공할 수 있다."),
    ("clause", "② 진흥원은 제1항에 따라 개인정보를 제공하는 경우 제공받는 자, 제공 목적, 제공 항목을 개인정보 "
               "제공 대장에 기록하고 3년간 보관하여야 한다."),
    ("article", "제7조(민감정보 및 고유식별정보의 처리) ① 진흥원은 건강, 사상·신념 등 정보주체의 사생활을 "
                "현저히 침해할 우려가 있는 민감정보를 처리해서는 아니 된다. 다만, 정보주체에게 제5조제2항 각 "
                "호의 사항을 알리고 다른 개인정보와 별도로 동의를 받은 경우에는 그러하지 아니하다."),
    ("clause", "② 주민등록번호는 법령에서 구체적으로 요구하거나 허용하는 경우에만 처리할 수 있으며, 제10조에 "
               "따라 암호화하여 보관하여야 한다."),
    ("article", "제8조(개인정보 처리의 위탁) ① 진흥원은 개인정보 처리 업무를 위탁하는 경우 위탁 업무의 내용과 "
                "수탁자를 누리집에 공개하여야 한다."),
    ("clause", "② 진흥원은 수탁자가 개인정보를 안전하게 처리하는지를 연 1회 이상 점검하여야 하며, 점검 결과 "
               "제10조제1항에 따른 안전성 확보 조치가 미흡한 경우에는 시정을 요구하여야 한다."),
    ("article", "제9조(개인정보의 파기) ① 진흥원은 보유 기간이 지나거나 처리 목적이 달성되는 등 개인정보가 "
                "불필요하게 되었을 때에는 지체 없이, 늦어도 5일 이내에 그 개인정보를 파기하여야 한다."),
    ("clause", "② 제1항에 따른 파기는 다음 각 호의 방법으로 한다."),
    ("item", "1. 전자적 파일 형태인 경우: 복원이 불가능한 방법으로 영구 삭제"),
    ("item", "2. 종이 문서 등 기록물인 경우: 분쇄하거나 소각"),
    ("clause", "③ 개인정보취급자는 제1항에 따라 개인정보를 파기한 경우 파기 일시, 항목, 방법을 기록하고 "
               "보호책임자의 확인을 받아야 한다."),
    ("chapter", "제3장 안전조치 및 정보주체의 권리"),
    ("article", "제10조(안전성 확보 조치) ① 진흥원은 개인정보가 분실·도난·유출·위조·변조 또는 훼손되지 "
                "아니하도록 다음 각 호의 조치를 하여야 한다."),
    ("item", "1. 개인정보취급자의 접근 권한을 업무 수행에 필요한 최소한의 범위로 차등 부여"),
    ("item", "2. 고유식별정보, 비밀번호 및 바이오정보의 암호화 저장"),
    ("item", "3. 개인정보처리시스템의 접속기록을 1년 이상 보관하고 월 1회 이상 점검"),
    ("item", "4. 보안 프로그램의 설치 및 주기적 갱신"),
    ("clause", "② 제1항제3호에 따른 점검 결과 비정상적인 대량 조회가 확인된 경우에는 즉시 보호책임자에게 "
               "보고하여야 한다."),
    ("article", "제11조(개인정보 유출 통지 등) ① 진흥원은 개인정보가 유출되었음을 알게 되었을 때에는 72시간 "
                "이내에 해당 정보주체에게 다음 각 호의 사항을 알려야 한다."),
    ("item", "1. 유출된 개인정보의 항목"),
    ("item", "2. 유출된 시점과 그 경위"),
    ("item", "3. 정보주체가 할 수 있는 피해 최소화 방법"),
    ("item", "4. 진흥원의 대응 조치 및 피해 구제 절차"),
    ("clause", "② 1천명 이상의 정보주체에 관한 개인정보가 유출된 경우에는 제1항에 따른 통지와 함께 개인정보 "
               "보호위원회 또는 한국인터넷진흥원에 신고하여야 한다."),
    ("article", "제12조(교육) 보호책임자는 개인정보취급자를 대상으로 연 2회 이상 개인정보 보호 교육을 "
                "실시하여야 하며, 제4조제2항제4호에 따른 교육 계획에는 교육 대상, 내용, 시기를 포함하여야 한다."),
    ("article", "제13조(정보주체의 권리 보장) ① 정보주체는 진흥원에 자신의 개인정보에 대한 열람, 정정·삭제, "
                "처리정지를 요구할 수 있다."),
    ("clause", "② 진흥원은 제1항에 따른 요구를 받은 날부터 10일 이내에 조치하고 그 결과를 정보주체에게 알려야 "
               "한다. 다만, 제5조제1항제2호에 해당하여 요구에 따를 수 없는 경우에는 그 사유를 알려야 한다."),
    ("chapter", "부칙"),
    ("article", "제1조(시행일) 이 규정은 2026년 1월 1일부터 시행한다."),
    ("article", "제2조(경과조치) 이 규정 시행 당시 종전의 규정에 따라 수집된 개인정보는 이 규정에 따라 수집된 "
                "것으로 본다."),
]

# ------------------------------------------------------------------------------------ sales_2025.xlsx

REGIONS = [
    ("서울", "Seoul"), ("부산", "Busan"), ("대구", "Daegu"), ("인천", "Incheon"), ("광주", "Gwangju"),
    ("대전", "Daejeon"), ("울산", "Ulsan"), ("세종", "Sejong"), ("경기", "Gyeonggi"), ("강원", "Gangwon"),
    ("충북", "Chungbuk"), ("충남", "Chungnam"), ("전북", "Jeonbuk"), ("전남", "Jeonnam"),
    ("경북", "Gyeongbuk"), ("경남", "Gyeongnam"), ("제주", "Jeju"),
]
PRODUCTS = [("노트북", 1_290_000), ("모니터", 329_000), ("태블릿", 649_000), ("주변기기", 45_000),
            ("소프트웨어 구독", 118_000)]
CHANNELS_KO = ["온라인", "대리점", "기업영업"]
CHANNELS_EN = ["Online", "Retail", "B2B", "Public"]
MANAGERS = ["김민준", "이서연", "박지호", "최유진", "정하늘", "강도윤", "윤서아", "Daniel Cho"]


def sales_sheets() -> tuple[dict[str, list[list[object]]], dict[str, list[str]]]:
    """Two sheets of plain values (no formulas: openpyxl would leave their cached values empty)."""
    rng = random.Random(2025)
    monthly: list[list[object]] = [
        ["기간", None, "지역", None, "제품", None, "매출 실적", None, None],
        ["일자", "월", "지역", "Region", "제품군", "채널", "수량", "단가(원)", "매출액(원)"],
    ]
    day = dt.date(2025, 1, 2)
    for _ in range(330):
        day += dt.timedelta(days=rng.choice([0, 1, 1, 1, 2]))
        ko, en = rng.choice(REGIONS)
        product, price = rng.choice(PRODUCTS)
        quantity = rng.randint(1, 60) * (5 if product == "주변기기" else 1)
        unit = round(price * rng.uniform(0.92, 1.0), -2)
        monthly.append([day, f"{day.month}월", ko, en, product, rng.choice(CHANNELS_KO), quantity,
                        int(unit), int(unit) * quantity])
    regional: list[list[object]] = [[
        "Region", "지역", "Quarter", "Channel", "Orders", "Revenue (KRW)", "Returns (KRW)",
        "Net Revenue (KRW)", "Growth vs LY (%)", "Account Manager",
    ]]
    for ko, en in REGIONS:
        for quarter in ("2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4"):
            for channel in CHANNELS_EN:
                orders = rng.randint(12, 900)
                revenue = orders * rng.randint(180, 1_400) * 1000
                returns = round(revenue * rng.uniform(0.0, 0.06), -3)
                regional.append([en, ko, quarter, channel, orders, revenue, int(returns),
                                 revenue - int(returns), round(rng.uniform(-12.0, 28.0), 1),
                                 rng.choice(MANAGERS)])
    sheets = {"월별매출": monthly, "Regional": regional}
    merges = {"월별매출": ["A1:B1", "C1:D1", "E1:F1", "G1:I1"]}
    return sheets, merges


# ----------------------------------------------------------------------------- quarterly_review.pptx

SLIDES = [
    Slide("2025 Q4 Quarterly Review", subtitle="4분기 실적 리뷰 · Sales & Operations · 2026-01-15"),
    Slide("Agenda / 목차", bullets=[
        "Q4 highlights (주요 성과)", "Revenue by region (권역별 매출)", "제품군별 성과 / Product lines",
        "Risks & issues (리스크)", "2026 Q1 plan (다음 분기 계획)",
    ]),
    Slide("Q4 Highlights / 주요 성과", bullets=[
        "Revenue 48.2억원, +12.4% YoY (전년 동기 대비)",
        (1, "온라인 채널 매출 비중 41% → 47%"),
        (1, "B2B 대형 계약 3건 체결 (공공기관 2건, 금융 1건)"),
        "Operating margin 9.8% (+1.1%p)",
        (1, "물류비 절감: 권역 통합 배송 도입 효과"),
        "NPS 52 → 58",
    ], notes="강조할 점: 성장의 절반 이상이 온라인 채널에서 나왔다. "
             "B2B 계약 3건의 매출은 대부분 1분기에 인식된다."),
    Slide("Revenue by Region (단위: 백만원)", bullets=["Preliminary figures; final close on Jan 20"], table=[
        ["Region / 권역", "Q3", "Q4", "QoQ", "YoY"],
        ["수도권 Capital area", "1,820", "2,040", "+12.1%", "+15.3%"],
        ["동남권 Southeast", "870", "905", "+4.0%", "+9.8%"],
        ["대경권 Daegu-Gyeongbuk", "410", "432", "+5.4%", "+6.1%"],
        ["충청권 Chungcheong", "520", "588", "+13.1%", "+18.0%"],
        ["호남권 Honam", "455", "471", "+3.5%", "+7.7%"],
        ["강원·제주 Gangwon & Jeju", "170", "184", "+8.2%", "+11.5%"],
    ], notes="충청권 성장은 세종 공공기관 계약 영향. 수치는 잠정치이며 1월 20일 마감 후 확정된다."),
    Slide("제품군별 성과 / Product Lines", bullets=[
        "노트북: 매출 1위, 신제품 효과로 +18%",
        (1, "14인치 경량 모델이 판매량의 62%"),
        "모니터: 기업 교체 수요로 +9%",
        "태블릿: 교육 시장 입찰 지연으로 -4%",
        (1, "1월 입찰 재개 예정, Q1 회복 기대"),
        (2, "입찰 규모 약 3,200대"),
        "소프트웨어 구독: 갱신율 91%",
    ]),
    Slide("Risks & Issues / 리스크", bullets=[
        "부품 단가 상승 (메모리 +15% QoQ)",
        (1, "Mitigation: 2분기 물량 선계약"),
        "환율 변동성: USD/KRW 1,450원 가정",
        "태블릿 재고 4.2주 (목표 3주)",
        (1, "프로모션으로 2월까지 소진 예정"),
    ], notes="환율 가정은 1월 10일 재무팀과 다시 확인했다."),
    Slide("2026 Q1 Plan / 다음 분기 계획", bullets=[
        "Revenue target 45억원 (계절적 비수기 반영)",
        "신규 채널: 기업 전용 온라인몰 오픈 (2월)",
        (1, "초기 입점 고객사 30곳 목표"),
        "물류: 중부권 통합센터 가동 (3월)",
        "Hiring: B2B 영업 3명, 데이터 분석 1명",
    ], notes="Q&A에서 예산 질문이 나오면 재무팀 박지호 팀장이 답변한다."),
]

# ---------------------------------------------------------------------------- employee_handbook.docx

HANDBOOK = [
    ("title", "Employee Handbook 2026 / 직원 안내서"),
    "This handbook explains how we work at Hanbit Analytics: hours, leave, conduct and security. "
    "It applies to all employees from 1 January 2026 and replaces the 2024 edition.",
    ("h1", "1. Welcome"),
    "We are a team of 140 people in Seoul and Daejeon building data products for public agencies. "
    "Read this handbook in your first week; your team lead will go through the key points with you.",
    "한국어 안내: 이 안내서는 근무 시간, 휴가, 행동 강령, 정보보안에 관한 기본 원칙을 담고 있습니다. "
    "궁금한 점은 인사팀에 문의하세요.",
    ("h1", "2. Working Hours (근무 시간)"),
    ("h2", "2.1 Core hours"),
    "Core hours are 10:00 to 16:00, Monday to Friday. Outside core hours you choose when to work, as long "
    "as the week adds up to 40 hours and your team's meetings are covered.",
    ("h2", "2.2 Remote work (재택근무)"),
    "Most roles may work remotely up to three days a week. Agree the days with your team lead and record "
    "them in the HR system by Friday for the following week.",
    ("bullet", "Be reachable on the team chat during core hours."),
    ("bullet", "Work from a private space when handling personal data (개인정보 처리 시 개인 공간에서 근무)."),
    ("bullet", "Use the company VPN for every connection to internal systems."),
    ("bullet", "Equipment allowance: up to 300,000 KRW once every two years."),
    ("h1", "3. Leave (휴가)"),
    "Leave is requested in the HR system at least three working days in advance, except sick leave and "
    "family emergencies. Unused annual leave can be carried over up to five days.",
    ("table", [
        ["Leave type", "유형", "Days per year", "Notes"],
        ["Annual leave", "연차", "15–25", "Grows by one day every two years of service"],
        ["Sick leave", "병가", "10", "Medical note needed after 3 consecutive days"],
        ["Family event leave", "경조사 휴가", "1–5", "Wedding, funeral, birth of a child"],
        ["Parental leave", "육아휴직", "Up to 1 year", "Per child, may be split into two periods"],
        ["Refresh leave", "리프레시 휴가", "10", "Once after every five years of service"],
    ]),
    ("h1", "4. Code of Conduct (행동 강령)"),
    "We expect everyone to treat colleagues, clients and partners with respect. In particular:",
    ("bullet", "No harassment or discrimination of any kind; report concerns to HR or the ethics line."),
    ("bullet", "Declare gifts or hospitality worth more than 30,000 KRW within five working days."),
    ("bullet", "Do not discuss client projects in public places or on personal social media."),
    ("h1", "5. IT & Security (정보보안)"),
    ("h2", "5.1 Passwords and accounts"),
    "Passwords must have at least 12 characters and are never shared, even with IT staff. "
    "Multi-factor authentication is mandatory for email, source code and the HR system.",
    ("h2", "5.2 Reporting an incident"),
    ("number", "Disconnect the affected device from the network."),
    ("number", "Report to security@hanbit.example within one hour (보안팀에 1시간 이내 신고)."),
    ("number", "Do not delete files or logs; the security team will collect them."),
    ("h1", "6. Contacts"),
    ("bullet", "HR (인사팀): hr@hanbit.example, ext. 2100"),
    ("bullet", "IT helpdesk: helpdesk@hanbit.example, ext. 2200"),
    ("bullet", "Ethics line (윤리 신고): ethics@hanbit.example"),
]

# ------------------------------------------------------------------------------- README_project.md

PROJECT_README = """\
# Hanbit Open Data Portal

한빛 오픈 데이터 포털은 도내 공공기관이 보유한 데이터를 한곳에서 검색하고 내려받을 수 있게 하는
프로젝트입니다. This repository holds the portal's ingestion jobs, API and admin console.

## Overview

The portal collects datasets from 38 agencies every night, checks them against a quality profile, and
publishes the ones that pass. 매일 밤 수집된 데이터는 품질 검사를 통과한 경우에만 공개됩니다.

## 주요 기능 (Features)

- 기관별 데이터셋 자동 수집 (CSV, XLSX, JSON, OpenAPI)
- Quality checks: schema drift, empty columns, duplicated keys
- 개인정보 자동 탐지 및 가명처리
- Download statistics per dataset and per agency

## Datasets

| Dataset | 데이터셋 | Agency | Update | Format |
| --- | --- | --- | --- | --- |
| Bus stops | 버스 정류장 위치 | 교통정책과 | Monthly | CSV |
| Air quality | 대기질 측정값 | 환경연구원 | Hourly | JSON |
| Complaints | 민원 처리 현황 | 민원봉사과 | Weekly | XLSX |
| Library loans | 도서관 대출 통계 | 평생학습과 | Monthly | CSV |
| Subway ridership | 지하철 역별 승하차 | 교통정책과 | Daily | CSV |

## Getting started

1. Install Python 3.11 and create a virtual environment.
2. Copy `.env.example` to `.env` and fill in the database URL.
3. Run the ingestion once by hand:

```bash
python -m portal.ingest --agency all --since 2026-01-01
```

4. Open the admin console at http://localhost:8080/admin.

## 기여 방법 (Contributing)

1. 이슈를 먼저 등록해 변경 내용을 논의합니다.
2. Branch names follow `feature/<issue-number>-short-name`.
3. 모든 변경은 리뷰어 1명 이상의 승인을 받아야 병합됩니다.

## License

Code is released under the Apache License 2.0. Published datasets follow the 공공누리 제1유형 terms
unless the dataset page says otherwise.
"""

# ------------------------------------------------------------------------------------- stations.csv

STATIONS = {
    "2호선": [
        ("시청", "City Hall"), ("을지로입구", "Euljiro 1-ga"), ("을지로3가", "Euljiro 3-ga"),
        ("을지로4가", "Euljiro 4-ga"), ("동대문역사문화공원", "Dongdaemun History & Culture Park"),
        ("신당", "Sindang"), ("상왕십리", "Sangwangsimni"), ("왕십리", "Wangsimni"),
        ("한양대", "Hanyang Univ."), ("뚝섬", "Ttukseom"), ("성수", "Seongsu"),
        ("건대입구", "Konkuk Univ."), ("구의", "Guui"), ("강변", "Gangbyeon"), ("잠실나루", "Jamsillaru"),
        ("잠실", "Jamsil"), ("잠실새내", "Jamsilsaenae"), ("종합운동장", "Sports Complex"),
        ("삼성", "Samseong"), ("선릉", "Seolleung"), ("역삼", "Yeoksam"), ("강남", "Gangnam"),
        ("교대", "Seoul Nat'l Univ. of Education"), ("서초", "Seocho"), ("방배", "Bangbae"),
        ("사당", "Sadang"), ("낙성대", "Nakseongdae"), ("서울대입구", "Seoul Nat'l Univ."),
        ("봉천", "Bongcheon"), ("신림", "Sillim"), ("신대방", "Sindaebang"),
        ("구로디지털단지", "Guro Digital Complex"), ("대림", "Daerim"), ("신도림", "Sindorim"),
        ("문래", "Mullae"), ("영등포구청", "Yeongdeungpo-gu Office"), ("당산", "Dangsan"),
        ("합정", "Hapjeong"), ("홍대입구", "Hongik Univ."), ("신촌", "Sinchon"),
        ("이대", "Ewha Womans Univ."), ("아현", "Ahyeon"), ("충정로", "Chungjeongno"),
    ],
    "3호선": [
        ("구파발", "Gupabal"), ("연신내", "Yeonsinnae"), ("불광", "Bulgwang"), ("녹번", "Nokbeon"),
        ("홍제", "Hongje"), ("무악재", "Muakjae"), ("독립문", "Dongnimmun"), ("경복궁", "Gyeongbokgung"),
        ("안국", "Anguk"), ("종로3가", "Jongno 3-ga"), ("을지로3가", "Euljiro 3-ga"),
        ("충무로", "Chungmuro"), ("동대입구", "Dongguk Univ."), ("약수", "Yaksu"), ("금호", "Geumho"),
        ("옥수", "Oksu"), ("압구정", "Apgujeong"), ("신사", "Sinsa"), ("잠원", "Jamwon"),
        ("고속터미널", "Express Bus Terminal"), ("교대", "Seoul Nat'l Univ. of Education"),
        ("남부터미널", "Nambu Bus Terminal"), ("양재", "Yangjae"), ("매봉", "Maebong"),
        ("도곡", "Dogok"), ("대치", "Daechi"), ("학여울", "Hangnyeoul"), ("대청", "Daecheong"),
        ("일원", "Irwon"), ("수서", "Suseo"), ("가락시장", "Garak Market"),
        ("경찰병원", "National Police Hospital"), ("오금", "Ogeum"),
    ],
    "4호선": [
        ("상계", "Sanggye"), ("노원", "Nowon"), ("창동", "Changdong"), ("쌍문", "Ssangmun"),
        ("수유", "Suyu"), ("미아", "Mia"), ("미아사거리", "Miasageori"), ("길음", "Gireum"),
        ("성신여대입구", "Sungshin Women's Univ."), ("한성대입구", "Hansung Univ."), ("혜화", "Hyehwa"),
        ("동대문", "Dongdaemun"), ("동대문역사문화공원", "Dongdaemun History & Culture Park"),
        ("충무로", "Chungmuro"), ("명동", "Myeong-dong"), ("회현", "Hoehyeon"), ("서울역", "Seoul Station"),
        ("숙대입구", "Sookmyung Women's Univ."), ("삼각지", "Samgakji"), ("신용산", "Sinyongsan"),
        ("이촌", "Ichon"), ("동작", "Dongjak"), ("총신대입구(이수)", "Chongshin Univ. (Isu)"),
        ("사당", "Sadang"), ("남태령", "Namtaeryeong"),
    ],
}


def station_rows() -> list[list[object]]:
    """One row per (line, station); ridership figures are synthetic, seeded for determinism."""
    rng = random.Random(1974)
    rows: list[list[object]] = [["id", "역명", "station_name_en", "노선", "일평균_승차(명)",
                                 "일평균_하차(명)", "최대_혼잡도(%)", "기준월"]]
    number = 0
    for line, stations in STATIONS.items():
        for korean, english in stations:
            number += 1
            boarding = int(rng.lognormvariate(9.9, 0.6))
            alighting = int(boarding * rng.uniform(0.9, 1.1))
            rows.append([number, korean, english, line, boarding, alighting,
                         round(rng.uniform(60, 185), 1), "2025-11"])
    return rows


# ------------------------------------------------------------------------------------------- main


def main() -> None:
    sheets, merges = sales_sheets()
    written = [
        make_report_pdf(HERE / "정책보고서_2026.pdf", REPORT_ITEMS, header=REPORT_TITLE, title=REPORT_TITLE,
                        author="한빛도 디지털산업정책과", subject="지역 디지털 전환 지원사업"),
        make_report_pdf(HERE / "개인정보_보호_규정.pdf", REGULATION_ITEMS, header=REGULATION_TITLE,
                        title=REGULATION_TITLE, author="한빛지역정보진흥원"),
        make_xlsx(HERE / "sales_2025.xlsx", sheets, merges=merges, title="2025 매출 실적",
                  author="영업관리팀"),
        make_pptx(HERE / "quarterly_review.pptx", SLIDES, title="2025 Q4 Quarterly Review",
                  author="Sales & Operations"),
        make_docx(HERE / "employee_handbook.docx", HANDBOOK, title="Employee Handbook 2026", author="HR"),
        make_md(HERE / "README_project.md", PROJECT_README),
        make_csv(HERE / "stations.csv", station_rows()),
    ]
    total = 0
    for path in written:
        size = path.stat().st_size
        total += size
        print(f"{size:>9,}  {path.relative_to(HERE.parent)}")
    print(f"{total:>9,}  total")


if __name__ == "__main__":
    main()
